import { getEvents } from '../lib/events/feed';
import { getEvents as route } from '../lib/events/routes';
import { endpoint } from '../lib/http/endpoint';

export const handler = endpoint(route, ({ caller, query }) => getEvents(caller, query));
