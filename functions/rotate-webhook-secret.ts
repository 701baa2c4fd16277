import { endpoint } from '../lib/http/endpoint';
import { rotateWebhookSecret as route } from '../lib/webhooks/routes';
import { rotateSecret } from '../lib/webhooks/webhooks';

export const handler = endpoint(route, ({ caller, params }) => rotateSecret(caller, params.id));
