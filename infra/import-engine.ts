/**
 * The import at scale (contract §11.2): files dropped under `incoming/` in the stage's import bucket,
 * the registries' files under `kbo/` and `sirene/` (§11.5.11, lib/import/registry-engine.ts) and the
 * filings under `filings/…/` (lib/filings/engine.ts), are imported by a Step Functions state machine
 * over the import engine's workers (lib/import/engine.ts): split by company, the partitions imported in
 * parallel by a Distributed Map, the lookalikes of the changed companies recomputed in parallel by a
 * second one (planned in shards, lib/lookalikes/fan-out.ts) under the table's lookalike lease, round
 * after round while marks are left, then the run's other completions and its report under `reports/`.
 * One run at a time per stage (import-lease-invoke.ts), the library import of `npm run import`. The
 * full lookalike job runs the same fan-out over every section, weekly and when an operator starts it.
 */
import { Duration, Names, RemovalPolicy, Stack, Token, Validations, type CfnElement } from 'aws-cdk-lib';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { EventField, Rule, RuleTargetInput, Schedule } from 'aws-cdk-lib/aws-events';
import { SfnStateMachine } from 'aws-cdk-lib/aws-events-targets';
import type { CfnFunction, Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Bucket, CfnBucket } from 'aws-cdk-lib/aws-s3';
import type { Queue } from 'aws-cdk-lib/aws-sqs';
import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import {
  Chain,
  Choice,
  Condition,
  DefinitionBody,
  DistributedMap,
  JsonPath,
  LogLevel,
  Pass,
  Result,
  StateMachine,
  Succeed,
  TaskInput,
  Wait,
  WaitTime,
  type IChainable,
} from 'aws-cdk-lib/aws-stepfunctions';
import { Construct } from 'constructs';
import { SlotWaitingInvoke, WORKER_CONCURRENCY } from './capacity';
import { ImportLeaseInvoke, releaseImportLease } from './import-lease-invoke';
import { REPORTS_PREFIX, WORK_PREFIX } from '../lib/import/engine';
import { REGISTRY_PREFIXES } from '../lib/import/registry-engine';
import { FILING_PREFIXES } from '../lib/filings/engine';
import { DROP_PREFIXES, type ImportStore } from './import-store';
export { ImportStore } from './import-store';

/** The split's local disk (Lambda's largest): a registry's dropped files, its spools and sorted runs. */
const SPLIT_DISK_MB = 10_240;
/** How long the run waits before asking again for a SIRENE units file's establishments file. */
const PAIR_POLL = Duration.minutes(1);
const SPLIT_BOUND = WORKER_CONCURRENCY.importSplit;
/** The state's fields of these names, for a step's payload. */
const fromState = (...fields: string[]) =>
  Object.fromEntries(fields.map((field) => [field, JsonPath.stringAt(`$.${field}`)]));

export interface ImportEngineProps {
  split: LambdaFunction;
  partition: LambdaFunction;
  complete: LambdaFunction;
  /** The lookalike fan-out's steps (lib/lookalikes/fan-out.ts), in both state machines. */
  lookalikesPlan: LambdaFunction;
  lookalikesShard: LambdaFunction;
  /** The full job's last step (the import's is `complete`). */
  lookalikesFinish: LambdaFunction;
  /** When the full lookalike job runs by itself (UTC, EventBridge cron fields). */
  lookalikesSchedule: { weekDay: string; hour: string; minute: string };
  /** The legal entity id key: the partition workers assign ids (read once per cold start). */
  legalEntitySecret: ISecret;
  /** Partitions imported (and lookalike shards computed) at once: the table's write rate is what they share. */
  maxConcurrency: number;
  /** The bucket and the undelivered-events queue, kept in the stage's stateful stack. */
  store: ImportStore;
  /** For the state machines' log groups. */
  removalPolicy: RemovalPolicy;
}

export class ImportEngine extends Construct {
  readonly bucket: Bucket;
  readonly stateMachine: StateMachine;
  /** The full lookalike job. */
  readonly lookalikesStateMachine: StateMachine;
  readonly undeliveredEvents: Queue;

  constructor(scope: Construct, id: string, props: ImportEngineProps) {
    super(scope, id);
    const { split, partition, complete, lookalikesPlan, lookalikesShard, lookalikesFinish } = props;
    this.bucket = props.store.bucket;
    this.undeliveredEvents = props.store.undeliveredEvents;

    // Each step only the objects it reads, writes or removes, by key prefix. The split reads what is
    // dropped, lists a SIRENE units file's folder for its establishments file (a CBSO reference file's
    // for its accounting file), and reports a drop it cannot import.
    this.allowObjects(split, ['s3:GetObject'], [...DROP_PREFIXES, WORK_PREFIX]);
    this.allowObjects(split, ['s3:PutObject'], [WORK_PREFIX, REPORTS_PREFIX]);
    this.allowListing(split, REGISTRY_PREFIXES.sirene);
    this.allowListing(split, FILING_PREFIXES.cbso);
    this.allowListing(split, WORK_PREFIX);
    (split.node.defaultChild as CfnFunction).ephemeralStorage = { size: SPLIT_DISK_MB };
    this.allowObjects(partition, ['s3:GetObject', 's3:PutObject'], [WORK_PREFIX]);
    this.allowListing(partition, WORK_PREFIX);
    this.allowObjects(complete, ['s3:GetObject', 's3:DeleteObject'], [WORK_PREFIX]);
    this.allowObjects(complete, ['s3:PutObject'], [REPORTS_PREFIX]);
    this.allowListing(complete, WORK_PREFIX);
    this.allowObjects(lookalikesPlan, ['s3:PutObject'], [WORK_PREFIX]);
    this.allowObjects(lookalikesShard, ['s3:GetObject'], [WORK_PREFIX]);
    this.allowObjects(lookalikesFinish, ['s3:GetObject', 's3:DeleteObject'], [WORK_PREFIX]);
    this.allowListing(lookalikesFinish, WORK_PREFIX);
    props.legalEntitySecret.grantRead(partition);
    partition.addEnvironment('LEGAL_ENTITY_SECRET_ARN', props.legalEntitySecret.secretArn);

    // Throttles wait for a slot (capacity.ts), import steps for the import lease; other failures: 3 tries.
    const retry = { errors: ['States.ALL'], maxAttempts: 3, interval: Duration.seconds(10), backoffRate: 2 };
    const splitStep = new ImportLeaseInvoke(this, 'Split', {
      lambdaFunction: split,
      payload: TaskInput.fromObject({
        bucket: JsonPath.stringAt('$.bucket'),
        key: JsonPath.stringAt('$.key'),
        run: JsonPath.stringAt('$$.Execution.Name'),
        startedAt: JsonPath.stringAt('$$.Execution.StartTime'),
      }),
      payloadResponseOnly: true,
    }).addRetry(retry);
    const importStep = new DistributedMap(this, 'ImportPartitions', {
      itemsPath: '$.partitions',
      itemSelector: {
        ...fromState('bucket', 'run', 'asOf', 'format'),
        partition: JsonPath.numberAt('$$.Map.Item.Value'),
      },
      maxConcurrency: props.maxConcurrency,
      resultPath: JsonPath.DISCARD,
    });
    importStep.itemProcessor(
      new ImportLeaseInvoke(this, 'ImportPartition', {
        lambdaFunction: partition,
        payloadResponseOnly: true,
      }).addRetry(retry),
    );
    const completeStep = new SlotWaitingInvoke(this, 'Complete', {
      lambdaFunction: complete,
      payloadResponseOnly: true,
    }).addRetry(retry);

    /*
     * The lookalike fan-out in rounds (lib/lookalikes/fan-out.ts, lease.ts): the plan takes the table's
     * lookalike lease and answers its shards (each at most SHARD_SUBJECTS subjects, a few minutes of a
     * worker), computed by a Distributed Map; the finish releases the lease and answers `again` when
     * marks written meanwhile (by imports that found the lease held) sent the run round once more, with
     * the next round's number (the Lambda bounds them, MAX_ROUNDS). A plan that found the lease held
     * goes on to `then` (the holder takes its marks) — the full job first waits for it, its own
     * timeout bounding the wait. A worker that fails is retried on the same shard. The plan or finish
     * under `$.lookalikes` keeps the state's other fields for the step after it. A shard is about 60
     * bytes of the state's 256 KB: some 4,000 shards, 200 M companies, fit one run.
     */
    const lookalikeRounds = (id: string, mode: 'marked' | 'all', bucket: string, then: IChainable) => {
      const run = JsonPath.stringAt('$$.Execution.Name');
      const round = JsonPath.numberAt('$.lookalikes.round');
      const start = new Pass(this, `${id}Start`, {
        result: Result.fromObject({ round: 1 }),
        resultPath: '$.lookalikes',
      });
      const plan = new SlotWaitingInvoke(this, `${id}Plan`, {
        lambdaFunction: lookalikesPlan,
        payload: TaskInput.fromObject({ bucket, run, mode, round }),
        payloadResponseOnly: true,
        resultPath: '$.lookalikes',
      }).addRetry(retry);
      const shards = new DistributedMap(this, `${id}Shards`, {
        itemsPath: '$.lookalikes.shards',
        itemSelector: { bucket, run, shard: JsonPath.objectAt('$$.Map.Item.Value') },
        maxConcurrency: props.maxConcurrency,
        resultPath: JsonPath.DISCARD,
      });
      shards.itemProcessor(
        new SlotWaitingInvoke(this, `${id}Shard`, {
          lambdaFunction: lookalikesShard,
          payloadResponseOnly: true,
        }).addRetry(retry),
      );
      const finish = new SlotWaitingInvoke(this, `${id}Finish`, {
        lambdaFunction: lookalikesFinish,
        payload: TaskInput.fromObject({ bucket, run, round }),
        payloadResponseOnly: true,
        resultPath: '$.lookalikes',
      }).addRetry(retry);
      const again = new Choice(this, `${id}Again`)
        .when(Condition.booleanEquals('$.lookalikes.again', true), plan)
        .otherwise(then);
      const planned = new Choice(this, `${id}Planned`).when(
        Condition.booleanEquals('$.lookalikes.planned', true),
        shards.next(finish).next(again),
      );
      if (mode === 'all') {
        planned.when(
          Condition.booleanEquals('$.lookalikes.waitForLease', true),
          new Wait(this, `${id}WaitForLease`, { time: WaitTime.duration(Duration.minutes(5)) }).next(plan),
        );
      }
      planned.otherwise(then);
      return Chain.start(start).next(plan).next(planned);
    };

    /*
     * The split answers `split` (partitions to import), `wait` (a SIRENE units file whose establishments
     * file is not there yet: asked again a minute later, the split bounding the wait), `ranges` (SIRENE's
     * units cut by siren: each range split by a worker of its own, then the partitions gathered by the
     * split, which answers again) or `done` (nothing to import: an establishments file alone, or a drop
     * not as published, its report written).
     */
    const splitAnswer = new Choice(this, 'SplitAnswer');
    // SIRENE's ranges (lib/import/sirene-ranges.ts): split in parallel, then their partitions gathered.
    const rangesStep = new DistributedMap(this, 'SplitRanges', {
      itemsPath: '$.ranges',
      itemSelector: {
        ...fromState('bucket', 'key', 'run', 'startedAt', 'establishments'),
        range: JsonPath.objectAt('$$.Map.Item.Value'),
      },
      // As many at once as the split may run (its reserved concurrency): more would only wait for a slot.
      maxConcurrency: SPLIT_BOUND === 'import' ? props.maxConcurrency : SPLIT_BOUND,
      resultPath: JsonPath.DISCARD,
    });
    rangesStep.itemProcessor(
      new ImportLeaseInvoke(this, 'SplitRange', {
        lambdaFunction: split,
        payloadResponseOnly: true,
      }).addRetry(retry),
    );
    const gatherStep = new ImportLeaseInvoke(this, 'GatherRanges', {
      lambdaFunction: split,
      payload: TaskInput.fromObject({
        ...fromState('bucket', 'key', 'run', 'startedAt', 'note'),
        gather: true,
      }),
      payloadResponseOnly: true,
    }).addRetry(retry);
    splitAnswer
      .when(
        Condition.stringEquals('$.status', 'wait'),
        new Wait(this, 'WaitForPair', { time: WaitTime.duration(PAIR_POLL) }).next(splitStep),
      )
      .when(Condition.stringEquals('$.status', 'ranges'), rangesStep.next(gatherStep).next(splitAnswer))
      .when(Condition.stringEquals('$.status', 'done'), new Succeed(this, 'NothingToImport'))
      .otherwise(
        importStep
          .next(releaseImportLease(this, complete, retry))
          .next(lookalikeRounds('Lookalikes', 'marked', JsonPath.stringAt('$.bucket'), completeStep)),
      );
    this.stateMachine = new StateMachine(this, 'StateMachine', {
      definitionBody: DefinitionBody.fromChainable(splitStep.next(splitAnswer)),
      timeout: Duration.hours(12),
      tracingEnabled: true,
      logs: {
        destination: new LogGroup(this, 'Logs', {
          retention: RetentionDays.ONE_MONTH,
          removalPolicy: props.removalPolicy,
        }),
        level: LogLevel.ALL,
      },
    });
    this.acknowledgeStateMachineWildcards(this.stateMachine, [
      split,
      partition,
      lookalikesPlan,
      lookalikesShard,
      lookalikesFinish,
      complete,
    ]);

    // The full job: every section, round after round while marks are left, then done.
    this.lookalikesStateMachine = new StateMachine(this, 'LookalikesStateMachine', {
      definitionBody: DefinitionBody.fromChainable(
        lookalikeRounds(
          'AllLookalikes',
          'all',
          this.bucket.bucketName,
          new Succeed(this, 'AllLookalikesDone'),
        ),
      ),
      timeout: Duration.hours(6),
      tracingEnabled: true,
      logs: {
        destination: new LogGroup(this, 'LookalikesLogs', {
          retention: RetentionDays.ONE_MONTH,
          removalPolicy: props.removalPolicy,
        }),
        level: LogLevel.ALL,
      },
    });
    this.acknowledgeStateMachineWildcards(this.lookalikesStateMachine, [
      lookalikesPlan,
      lookalikesShard,
      lookalikesFinish,
    ]);
    const { weekDay, hour, minute } = props.lookalikesSchedule;
    const schedule = new Rule(this, 'LookalikesSchedule', {
      description: 'Recomputes every lookalike list (a safety net: each import recomputes what it touches)',
      schedule: Schedule.cron({ weekDay, hour, minute }),
      targets: [new SfnStateMachine(this.lookalikesStateMachine, { retryAttempts: 2 })],
    });
    Validations.of(schedule).acknowledge({
      id: 'Serverless-EventBusDLQ',
      reason:
        'A schedule of an idempotent job: an event EventBridge could not deliver after its retries is ' +
        'the same run as the next one, and a failed step raises the Errors alarm of its function.',
    });

    new Rule(this, 'OnFileDropped', {
      description: `Imports a file dropped under ${DROP_PREFIXES.join(', ')} in the import bucket`,
      eventPattern: {
        source: ['aws.s3'],
        detailType: ['Object Created'],
        detail: {
          bucket: { name: [this.bucket.bucketName] },
          object: { key: DROP_PREFIXES.map((prefix) => ({ prefix })) },
        },
      },
      targets: [
        new SfnStateMachine(this.stateMachine, {
          input: RuleTargetInput.fromObject({
            bucket: EventField.fromPath('$.detail.bucket.name'),
            key: EventField.fromPath('$.detail.object.key'),
          }),
          // EventBridge retries a run it could not start (throttling, a missing permission) for a day,
          // then files the event here: the file stays where it was dropped and the alarm says which.
          retryAttempts: 24,
          maxEventAge: Duration.hours(24),
          deadLetterQueue: this.undeliveredEvents,
        }),
      ],
    });
  }

  private allowObjects(worker: LambdaFunction, actions: string[], prefixes: string[]): void {
    worker.addToRolePolicy(
      new PolicyStatement({
        actions,
        resources: prefixes.map((prefix) => this.bucket.arnForObjects(`${prefix}*`)),
      }),
    );
    const bucketArn = arnInFinding(this, this.bucket.node.defaultChild as CfnBucket);
    for (const prefix of prefixes) {
      Validations.of(worker.role!).acknowledge({
        id: `AwsSolutions-IAM5[Resource::${bucketArn}/${prefix}*]`,
        reason: `The objects under ${prefix} in the import bucket: a run names its files when it runs.`,
      });
    }
  }

  /** What CDK grants a state machine with a Distributed Map, X-Ray and logs: each finding by name. */
  private acknowledgeStateMachineWildcards(machine: StateMachine, workers: LambdaFunction[]): void {
    const stack = Stack.of(this);
    const logicalId = (construct: Construct) => stack.getLogicalId(construct.node.defaultChild as CfnElement);
    const region = Token.isUnresolved(stack.region) ? '<AWS::Region>' : stack.region;
    // A production stage names its account (infra/app.ts): the ARN then holds it, not a reference.
    const account = Token.isUnresolved(stack.account) ? '<AWS::AccountId>' : stack.account;
    const name = `{"Fn::Select":[6,{"Fn::Split":[":",{"Ref":"${stack.getLogicalId(machine.node.defaultChild as CfnElement)}"}]}]}`;
    const executions = `arn:<AWS::Partition>:states:${region}:${account}:execution:${name}`;
    const findings: Array<[string, string]> = [
      ['*', 'X-Ray traces and CloudWatch Logs delivery take no resource-level permissions.'],
      [
        `${executions}:*`,
        "The Distributed Map's child executions of this state machine (named at run time).",
      ],
      [
        `${executions}/*:*`,
        "The Distributed Map's child executions of this state machine (named at run time).",
      ],
      ...workers.map((worker): [string, string] => [
        `<${logicalId(worker)}.Arn>:*`,
        'The versions and aliases of one worker function, which the state machine invokes.',
      ]),
    ];
    for (const [resource, reason] of findings) {
      Validations.of(machine).acknowledge({
        id: `AwsSolutions-IAM5[Resource::${resource}]`,
        reason,
      });
    }
  }

  private allowListing(worker: LambdaFunction, prefix: string): void {
    worker.addToRolePolicy(
      new PolicyStatement({
        actions: ['s3:ListBucket'],
        resources: [this.bucket.bucketArn],
        conditions: { StringLike: { 's3:prefix': [`${prefix}*`] } },
      }),
    );
  }
}

/**
 * How cdk-nag shows the ARN of `resource` in a policy of `scope`'s template: `<LogicalId.Arn>` in the
 * same template; in a nested stack, the parameter CDK passes it through (`reference-to-` and the
 * resource's unique id, as its logical id).
 */
function arnInFinding(scope: Construct, resource: CfnElement): string {
  if (Stack.of(resource) === Stack.of(scope)) return `<${Stack.of(scope).getLogicalId(resource)}.Arn>`;
  return `<referenceto${Names.nodeUniqueId(resource.node)}Arn>`;
}
