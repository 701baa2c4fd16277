import { endpoint } from '../lib/http/endpoint';
import { withIdempotency } from '../lib/idempotency/idempotency';
import { addCompanies } from '../lib/lists/add-companies';
import { listRoutes } from '../lib/lists/routes';

export const handler = endpoint(listRoutes.addListCompanies, ({ caller, params, body, idempotencyKey }) =>
  withIdempotency(
    {
      accountId: caller.accountId,
      key: idempotencyKey,
      fingerprint: { route: 'addListCompanies', params, body },
    },
    () => addCompanies(caller, params.id, body.companies),
  ),
);
