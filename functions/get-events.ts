import { getEvents } from '../lib/events/feed';
import { eventRoutes } from '../lib/events/routes';
import { endpoint } from '../lib/http/endpoint';

export const handler = endpoint(eventRoutes.getEvents, ({ caller, query }) => getEvents(caller, query));
