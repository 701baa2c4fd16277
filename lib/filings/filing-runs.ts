/**
 * A run's filings grouped by company on local disk (lib/import/sources/sorted-runs.ts), as the filing
 * import needs them (a company's filings come in any order in the files; §11.5.10). A filing is held
 * in the runs as one flat array, its figures in the mapping's order (lib/filings/mapping.ts), not as
 * its object: the grouping writes and reads back every filing once, and the figures' names would be
 * most of its text.
 */
import { companyKey } from '../companies/identifiers';
import { SortedRuns } from '../import/sources/sorted-runs';
import { FILING_RUN_SIZE, type Filing, type FilingFormat } from './filing';
import { MAPPING, type Figures, type Group } from './mapping';

type PackedFiling = [
  file: string,
  line: number,
  format: FilingFormat,
  country: Filing['country'],
  companyNumber: string,
  endDate: string,
  startDate: string | null,
  dateReceived: string | null,
  rank: string,
  healthIndicator: number | null,
  dropped: number,
  ...figures: Array<number | null>,
];

const FIXED = 11;

export function packFiling(f: Filing): PackedFiling {
  const figures = f.figures as Record<Group, Record<string, number | null>>;
  return [
    f.source.file,
    f.source.line,
    f.format,
    f.country,
    f.companyNumber,
    f.endDate,
    f.startDate,
    f.dateReceived,
    f.rank,
    f.healthIndicator,
    f.dropped,
    ...MAPPING.map((row) => figures[row.group][row.field] ?? null),
  ];
}

/** The filing `packFiling` packed, its figures' keys in the mapping's order (as `figuresOf` makes them). */
export function unpackFiling(p: PackedFiling): Filing {
  const groups: Record<Group, Record<string, number | null>> = {
    profitability: {},
    liquidity: {},
    solvency: {},
    people: {},
  };
  for (let i = 0; i < MAPPING.length; i++)
    groups[MAPPING[i]!.group][MAPPING[i]!.field] = (p[FIXED + i] as number | null) ?? null;
  const figures = groups as Figures;
  const [file, line, format, country, companyNumber, endDate, startDate, dateReceived, rank] = p;
  const [healthIndicator, dropped] = [p[9], p[10]];
  const dates = { endDate, startDate, dateReceived };
  return {
    source: { file, line },
    format,
    country,
    companyNumber,
    ...dates,
    rank,
    healthIndicator,
    figures,
    dropped,
  };
}

/** Filings added in any order, given back grouped by company (in the order added within a company). */
export class FilingRuns {
  private readonly runs: SortedRuns<PackedFiling>;

  constructor(runSize = FILING_RUN_SIZE) {
    this.runs = new SortedRuns<PackedFiling>({ runSize });
  }

  add(filing: Filing): Promise<void> {
    return this.runs.add(companyKey(filing), packFiling(filing));
  }

  /** Every filing added, by company key; then the runs are gone. */
  async *sorted(): AsyncGenerator<[string, Filing]> {
    for await (const [key, packed] of this.runs.sorted()) yield [key, unpackFiling(packed)];
  }

  discard(): Promise<void> {
    return this.runs.discard();
  }
}
