/**
 * The shape of a bench case (documented at the top of cases.ts, where the cases are) and the data every
 * case can use: what bench.ts and its parts read of a case.
 */
import type { APIGatewayProxyEvent, APIGatewayTokenAuthorizerEvent } from 'aws-lambda';
import type { RouteId } from '../../lib/routes';
import type { FloorKind } from './floor-sources';

export type FunctionId = RouteId | 'authorizer';
export type BenchEvent = APIGatewayProxyEvent | APIGatewayTokenAuthorizerEvent;

/** What every case can use: on a fresh table, `COMPANIES` demo companies, the demo lists (ids 1..7) and tokens. */
export interface BenchData {
  /** In demo order; the bulk cases take three disjoint sets of `BULK_SIZE`. */
  companies: { countryCode: string; companyNumber: string }[];
  /** Alice's token (acme, every scope): the callers of the API events are Alice too. */
  token: string;
  /** At most how many calls a function and its floor get in the run, together ('{{seq}}' stays below it). */
  callsPerFunction: number;
  /** A company of demo smart list 4 (its state moves between SAVED and ARCHIVED). */
  smartListCompany: { country: string; companyNumber: string };
}

export interface BenchCase {
  label: string;
  floor: FloorKind;
  /** `updates`: single or bulk, with 3 round trips (issue 9: legal entity ids, then feeds and relationships). */
  /** `search`: a name search, a Query per country (3), ≤ 11 round trips past the Queries' bound. */
  budget: 'single' | 'bulk' | 'updates' | 'search' | 'authorizer' | null;
  events: (data: BenchData) => BenchEvent[];
  floorEvents?: (data: BenchData) => BenchEvent[];
  setup?: (data: BenchData) => Promise<void>;
  document?: true;
}

export const COMPANIES = 300;
export const BULK_SIZE = 100;
