/**
 * The web ACL in front of every deployed stage (contract §13: unauthenticated traffic is limited per
 * client address before it reaches any function). Rules, in order:
 *
 * - per-address rate rules (figures from capacity.ts, docs/security.md): requests without a well-formed
 *   bearer header (none, or one that cannot be a token: an invented header lifts no one); requests to
 *   the public routes, whatever their headers; and every request, above the largest plan, so no address
 *   sending valid tokens is limited below its plan and none can take the stage. They answer 429
 *   THROTTLED with Retry-After themselves (a custom response, which takes precedence over the gateway's):
 *   an address over a rate is refused until its rate over the window falls.
 * - AWS managed rule groups that fit a JSON API: the common rule set (OWASP-style probes), known bad
 *   inputs (Log4j, exploit paths), the Amazon IP reputation list. The common set's body size rule counts
 *   instead of blocking: bodies up to 1 MiB are the contract's (§1), beyond WAF's 8 KB inspection window;
 *   so does its missing User-Agent rule, since callers are server-side integrations that may send none.
 *   What they block answers the gateway's WAF_FILTERED response: 403 FORBIDDEN with the request id
 *   (gateway-responses.ts), since sending it again will be refused again.
 *
 * Every request WAF blocks is logged to a log group of its own (`aws-waf-logs-…`, as WAF requires),
 * without the Authorization header.
 */
import { ArnFormat, RemovalPolicy, Stack } from 'aws-cdk-lib';
import type { RestApi } from 'aws-cdk-lib/aws-apigateway';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { CfnLoggingConfiguration, CfnWebACL, CfnWebACLAssociation } from 'aws-cdk-lib/aws-wafv2';
import { Construct } from 'constructs';
import { ANSWER_HEADERS } from '../lib/http/endpoint';
import { ThrottledError } from '../lib/http/errors';
import { BEARER_HEADER_PATTERN } from '../lib/tokens/token-format';
import { WAF_WINDOW_SECONDS } from './capacity';

export {
  DEFAULT_WAF_ANONYMOUS_RATE_LIMIT,
  DEFAULT_WAF_PUBLIC_RATE_LIMIT,
  DEFAULT_WAF_RATE_LIMIT,
} from './capacity';

/** Seconds an address over a rate rule is told to wait: WAF lifts the block once its rate falls. */
export const WAF_RETRY_AFTER_SECONDS = 60;

export const MANAGED_RULE_GROUPS = [
  'AWSManagedRulesCommonRuleSet',
  'AWSManagedRulesKnownBadInputsRuleSet',
  'AWSManagedRulesAmazonIpReputationList',
] as const;

/** The key of the rate rules' answer body. */
const THROTTLED_BODY = 'throttled';

/**
 * The URI paths of the public routes, as WAF sees them: after the stage's name when called on the
 * execute-api address (`/dev/v1/health`), without it behind a custom domain.
 */
export function publicPathPattern(paths: string[]): string {
  const alternatives = paths.map((path) =>
    path
      .split(/\{[^}]+\}/)
      .map((part) => part.replace(/[.*+?^$()|[\]\\]/g, '\\$&'))
      .join('[^/]+'),
  );
  return `^(/[^/]+)?(${alternatives.join('|')})/?$`;
}

/** Rules of the common rule set that only count (see the module comment). */
const COUNTED_COMMON_RULES = ['SizeRestrictions_BODY', 'NoUserAgent_HEADER'];

export interface StageWafProps {
  api: RestApi;
  rateLimit: number;
  anonymousRateLimit: number;
  publicRateLimit: number;
  /** The public routes' paths (the route table's routes without a scope). */
  publicPaths: string[];
  removalPolicy: RemovalPolicy;
}

export class StageWaf extends Construct {
  readonly webAcl: CfnWebACL;
  readonly logGroup: LogGroup;

  constructor(scope: Construct, id: string, props: StageWafProps) {
    super(scope, id);
    const stage = props.api.deploymentStage.stageName;
    const visibility = (metricName: string) => ({
      cloudWatchMetricsEnabled: true,
      metricName,
      sampledRequestsEnabled: true,
    });
    // The rate rules come first: a flood is refused before the managed groups inspect it.
    const managed = MANAGED_RULE_GROUPS.map((name, i) => ({
      name,
      priority: 3 + i,
      overrideAction: { none: {} },
      statement: {
        managedRuleGroupStatement: {
          vendorName: 'AWS',
          name,
          ...(name === 'AWSManagedRulesCommonRuleSet'
            ? {
                ruleActionOverrides: COUNTED_COMMON_RULES.map((rule) => ({
                  name: rule,
                  actionToUse: { count: {} },
                })),
              }
            : {}),
        },
      },
      visibilityConfig: visibility(name),
    }));
    const throttled = new ThrottledError(WAF_RETRY_AFTER_SECONDS);
    const rate = (name: string, priority: number, limit: number, scopeDown?: object) => ({
      name,
      priority,
      action: {
        block: {
          customResponse: {
            responseCode: throttled.status,
            customResponseBodyKey: THROTTLED_BODY,
            responseHeaders: Object.entries({ ...throttled.headers, ...ANSWER_HEADERS })
              .filter(([header]) => header.toLowerCase() !== 'content-type')
              .map(([header, value]) => ({ name: header, value })),
          },
        },
      },
      statement: {
        rateBasedStatement: {
          aggregateKeyType: 'IP',
          limit,
          evaluationWindowSec: WAF_WINDOW_SECONDS,
          ...(scopeDown ? { scopeDownStatement: scopeDown } : {}),
        },
      },
      visibilityConfig: visibility(name),
    });
    // No Authorization header, or one the gateway would refuse before the authorizer anyway.
    const withoutBearer = {
      notStatement: {
        statement: {
          regexMatchStatement: {
            regexString: BEARER_HEADER_PATTERN,
            fieldToMatch: { singleHeader: { Name: 'authorization' } },
            textTransformations: [{ priority: 0, type: 'NONE' }],
          },
        },
      },
    };
    const toPublicRoute = {
      regexMatchStatement: {
        regexString: publicPathPattern(props.publicPaths),
        fieldToMatch: { uriPath: {} },
        textTransformations: [{ priority: 0, type: 'NONE' }],
      },
    };
    this.webAcl = new CfnWebACL(this, 'WebAcl', {
      scope: 'REGIONAL',
      defaultAction: { allow: {} },
      visibilityConfig: visibility(`company-data-${stage}`),
      customResponseBodies: {
        // The contract's error shape; WAF has no request id to put in it.
        [THROTTLED_BODY]: {
          contentType: 'APPLICATION_JSON',
          content: JSON.stringify({ message: throttled.message, code: throttled.code }),
        },
      },
      rules: [
        rate('RatePerIpAnonymous', 0, props.anonymousRateLimit, withoutBearer),
        rate('RatePerIpPublic', 1, props.publicRateLimit, toPublicRoute),
        rate('RatePerIp', 2, props.rateLimit),
        ...managed,
      ],
    });
    new CfnWebACLAssociation(this, 'Association', {
      resourceArn: props.api.deploymentStage.stageArn,
      webAclArn: this.webAcl.attrArn,
    });

    this.logGroup = new LogGroup(this, 'Logs', {
      // WAF delivers only to log groups whose name starts with this.
      logGroupName: `aws-waf-logs-company-data-${Stack.of(this).stackName}`,
      retention: RetentionDays.ONE_YEAR,
      removalPolicy: props.removalPolicy,
    });
    new CfnLoggingConfiguration(this, 'Logging', {
      resourceArn: this.webAcl.attrArn,
      logDestinationConfigs: [
        Stack.of(this).formatArn({
          service: 'logs',
          resource: 'log-group',
          resourceName: this.logGroup.logGroupName,
          arnFormat: ArnFormat.COLON_RESOURCE_NAME,
        }),
      ],
      // The token is never written to a log.
      redactedFields: [{ singleHeader: { Name: 'authorization' } }],
    });
  }
}
