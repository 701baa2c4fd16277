import * as v from 'valibot';

export const healthSchema = v.object({ status: v.literal('ok') });
