/**
 * The head of every floor handler's source (floor-sources.ts, list-floors.ts): the bare SDK client and
 * the few key and body helpers the floors share, in the plain JS the floor bundles are built from.
 */
export const CLIENT = `
import {
  BatchGetItemCommand,
  DynamoDBClient,
  GetItemCommand,
  QueryCommand,
  TransactWriteItemsCommand,
} from '@aws-sdk/client-dynamodb';
// Configured as lib/storage/client.ts configures the functions' client for DynamoDB Local.
const client = new DynamoDBClient({
  maxAttempts: 3,
  endpoint: process.env.DYNAMODB_ENDPOINT,
  region: process.env.AWS_REGION || 'local',
  credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
});
const table = process.env.TABLE_NAME;
// A company's items (lib/storage/keys.ts): the record (COMPANY), its lookalikes, its relationships.
const companyKey = (country, number, sk = 'COMPANY') => ({ pk: { S: 'COMPANY#' + country + '#' + number }, sk: { S: sk } });
// The body as sent, or as middy's JSON body parser left it when the floor loads it (floors.ts).
const bodyOf = (event) => (typeof event.body === 'string' ? JSON.parse(event.body) : event.body);
const projectionOf = (attributes) => ({
  ProjectionExpression: attributes.map((_, i) => '#p' + i).join(','),
  ExpressionAttributeNames: Object.fromEntries(attributes.map((a, i) => ['#p' + i, a])),
});
`;
