/**
 * The dev stage's import engine state machines (infra/import-engine.ts, contract §11.2): the import
 * (split, partitions, the import lease, lookalikes in rounds) and the weekly lookalike job. The bucket,
 * the rule that starts an import and the workers' grants: stack-import.test.ts.
 */
import { Match } from 'aws-cdk-lib/assertions';
import { devTemplate } from './support/stage';
import { type CfnResource, resourcesOfType } from './support/template';

describe('CompanyDataStack (dev)', () => {
  const template = devTemplate();

  describe('import engine state machines (contract §11.2)', () => {
    /** The one state machine whose logical id starts with `prefix`. */
    const machineOf = (prefix: string): CfnResource => {
      const [[, machine]] = resourcesOfType(template, 'AWS::StepFunctions::StateMachine').filter(([id]) =>
        id.startsWith(prefix),
      ) as [[string, CfnResource]];
      return machine;
    };

    const definitionOf = (prefix: string) => {
      const machine = machineOf(prefix);
      expect(machine.Properties).toMatchObject({
        TracingConfiguration: { Enabled: true },
        LoggingConfiguration: { Level: 'ALL' },
      });
      return JSON.stringify(machine.Properties.DefinitionString);
    };

    /** The states of a definition by name (the template holds it as a string joined with references). */
    const statesOf = (prefix: string): Record<string, Record<string, unknown>> => {
      const parts = (machineOf(prefix).Properties.DefinitionString as { 'Fn::Join': [string, unknown[]] })[
        'Fn::Join'
      ][1];
      // A reference always stands inside a JSON string of the definition (an ARN, a bucket name).
      const text = parts.map((part) => (typeof part === 'string' ? part : '<ref>')).join('');
      return (JSON.parse(text) as { States: Record<string, Record<string, unknown>> }).States;
    };

    it('splits, imports the partitions, recomputes the lookalikes in shards, then completes; traced and logged', () => {
      const definition = definitionOf('ImportEngineStateMachine');
      for (const expected of [
        '\\"StartAt\\":\\"Split\\"',
        '\\"Type\\":\\"Map\\"',
        '\\"Mode\\":\\"DISTRIBUTED\\"',
        '\\"ItemsPath\\":\\"$.partitions\\"',
        '\\"MaxConcurrency\\":16',
        '\\"Next\\":\\"LookalikesStart\\"',
        '\\"mode\\":\\"marked\\"',
        '\\"ItemsPath\\":\\"$.lookalikes.shards\\"',
      ]) {
        expect(definition).toContain(expected);
      }
    });

    it('imports what the split cut, asks again a minute later while a SIRENE pair is incomplete, ends when nothing is to import', () => {
      const states = statesOf('ImportEngineStateMachine');
      expect(states['Split']).toMatchObject({
        Parameters: {
          'bucket.$': '$.bucket',
          'key.$': '$.key',
          'run.$': '$$.Execution.Name',
          'startedAt.$': '$$.Execution.StartTime',
        },
        Next: 'SplitAnswer',
      });
      expect(states['SplitAnswer']).toEqual({
        Type: 'Choice',
        Choices: [
          { Variable: '$.status', StringEquals: 'wait', Next: 'WaitForPair' },
          { Variable: '$.status', StringEquals: 'ranges', Next: 'SplitRanges' },
          { Variable: '$.status', StringEquals: 'done', Next: 'NothingToImport' },
        ],
        Default: 'ImportPartitions',
      });
      // SIRENE's ranges: each split by a worker of its own, then gathered by the split, which answers again.
      expect(states['SplitRanges']).toMatchObject({
        Type: 'Map',
        ItemProcessor: { ProcessorConfig: { Mode: 'DISTRIBUTED' } },
        ItemsPath: '$.ranges',
        // The split's reserved concurrency (infra/capacity.ts).
        MaxConcurrency: 2,
        ItemSelector: {
          'bucket.$': '$.bucket',
          'key.$': '$.key',
          'run.$': '$.run',
          'startedAt.$': '$.startedAt',
          'establishments.$': '$.establishments',
          'range.$': '$$.Map.Item.Value',
        },
        ResultPath: null,
        Next: 'GatherRanges',
      });
      expect(states['GatherRanges']).toMatchObject({
        Parameters: { gather: true, 'note.$': '$.note', 'run.$': '$.run' },
        Next: 'SplitAnswer',
      });
      expect(states['WaitForPair']).toEqual({ Type: 'Wait', Seconds: 60, Next: 'Split' });
      expect(states['NothingToImport']).toEqual({ Type: 'Succeed' });
      // Each partition knows what it holds: JSON Lines or a registry's units.
      expect(states['ImportPartitions']).toMatchObject({
        ItemSelector: {
          'bucket.$': '$.bucket',
          'run.$': '$.run',
          'asOf.$': '$.asOf',
          'format.$': '$.format',
          'partition.$': '$$.Map.Item.Value',
        },
      });
    });

    it('retries a split or partition that finds the import lease held by another run for hours; frees it after the partitions', () => {
      const states = statesOf('ImportEngineStateMachine');
      const partitionStates = (states['ImportPartitions']!['ItemProcessor'] as { States: typeof states })
        .States;
      const rangeStates = (states['SplitRanges']!['ItemProcessor'] as { States: typeof states }).States;
      for (const step of [
        states['Split'],
        partitionStates['ImportPartition'],
        rangeStates['SplitRange'],
        states['GatherRanges'],
      ]) {
        const retries = step!['Retry'] as Array<{ ErrorEquals: string[] } & Record<string, unknown>>;
        // Lambda's own transient errors and throttles first (capacity.ts), any other failure last.
        expect(retries.map((r) => r.ErrorEquals).slice(1)).toEqual([
          ['Lambda.TooManyRequestsException'],
          ['ImportLeaseHeld'],
          ['States.ALL'],
        ]);
        expect(retries[2]).toEqual({
          ErrorEquals: ['ImportLeaseHeld'],
          IntervalSeconds: 30,
          MaxAttempts: 100,
          BackoffRate: 1.5,
          MaxDelaySeconds: 300,
          JitterStrategy: 'FULL',
        });
      }
      expect(states['ImportPartitions']).toMatchObject({ Next: 'ReleaseImportLease' });
      expect(states['ReleaseImportLease']).toMatchObject({
        Parameters: { 'run.$': '$$.Execution.Name', releaseImportLease: true },
        ResultPath: null,
        Next: 'LookalikesStart',
      });
    });

    it("recomputes an import's lookalikes in rounds under the lease, and completes without them when it is held", () => {
      const states = statesOf('ImportEngineStateMachine');
      expect(states['LookalikesStart']).toMatchObject({
        Type: 'Pass',
        Result: { round: 1 },
        ResultPath: '$.lookalikes',
        Next: 'LookalikesPlan',
      });
      expect(states['LookalikesPlan']).toMatchObject({
        Parameters: { mode: 'marked', 'round.$': '$.lookalikes.round', 'run.$': '$$.Execution.Name' },
        ResultPath: '$.lookalikes',
        Next: 'LookalikesPlanned',
      });
      // Planned: the shards, then the finish; not planned (nothing marked, or the lease held): Complete.
      expect(states['LookalikesPlanned']).toEqual({
        Type: 'Choice',
        Choices: [{ Variable: '$.lookalikes.planned', BooleanEquals: true, Next: 'LookalikesShards' }],
        Default: 'Complete',
      });
      expect(states['LookalikesShards']).toMatchObject({ Next: 'LookalikesFinish' });
      expect(states['LookalikesFinish']).toMatchObject({
        Parameters: { 'round.$': '$.lookalikes.round', 'run.$': '$$.Execution.Name' },
        ResultPath: '$.lookalikes',
        Next: 'LookalikesAgain',
      });
      // Marks left: back to the plan, for the next round.
      expect(states['LookalikesAgain']).toEqual({
        Type: 'Choice',
        Choices: [{ Variable: '$.lookalikes.again', BooleanEquals: true, Next: 'LookalikesPlan' }],
        Default: 'Complete',
      });
      expect(states['Complete']).toMatchObject({ End: true });
    });

    it('runs the full lookalike job as the same fan-out, weekly, and outputs it for an operator', () => {
      const definition = definitionOf('ImportEngineLookalikesStateMachine');
      for (const expected of [
        '\\"StartAt\\":\\"AllLookalikesStart\\"',
        '\\"mode\\":\\"all\\"',
        '\\"Mode\\":\\"DISTRIBUTED\\"',
        '\\"ItemsPath\\":\\"$.lookalikes.shards\\"',
        '\\"Next\\":\\"AllLookalikesFinish\\"',
      ]) {
        expect(definition).toContain(expected);
      }
      const states = statesOf('ImportEngineLookalikesStateMachine');
      // The lease held: wait for it and plan again (the state machine's timeout bounds the wait).
      expect(states['AllLookalikesPlanned']).toEqual({
        Type: 'Choice',
        Choices: [
          { Variable: '$.lookalikes.planned', BooleanEquals: true, Next: 'AllLookalikesShards' },
          { Variable: '$.lookalikes.waitForLease', BooleanEquals: true, Next: 'AllLookalikesWaitForLease' },
        ],
        Default: 'AllLookalikesDone',
      });
      expect(states['AllLookalikesWaitForLease']).toEqual({
        Type: 'Wait',
        Seconds: 300,
        Next: 'AllLookalikesPlan',
      });
      expect(states['AllLookalikesAgain']).toEqual({
        Type: 'Choice',
        Choices: [{ Variable: '$.lookalikes.again', BooleanEquals: true, Next: 'AllLookalikesPlan' }],
        Default: 'AllLookalikesDone',
      });
      expect(states['AllLookalikesDone']).toEqual({ Type: 'Succeed' });
      template.hasResourceProperties('AWS::Events::Rule', {
        ScheduleExpression: 'cron(0 3 ? * SUN *)',
        Targets: [
          Match.objectLike({
            Arn: { Ref: Match.stringLikeRegexp('^ImportEngineLookalikesStateMachine') },
            RetryPolicy: { MaximumRetryAttempts: 2 },
          }),
        ],
      });
      template.hasOutput('LookalikesStateMachineArn', {});
    });
  });
});
