/**
 * The health indicator (contract §6.1: 0..10, higher is healthier) as the service's published models
 * compute it, documented with worked examples in docs/financials.md.
 *
 * - **Figures** (a Belgian filing, the demo data): Altman's Z''-score for private and non-manufacturing
 *   firms (Altman 1983, revised 1995: "Predicting financial distress of companies", Altman & Hotchkiss),
 *   `Z'' = 6.56·X1 + 3.26·X2 + 6.72·X3 + 1.05·X4` over the period's own §6.1 figures:
 *   X1 = netWorkingCapital / totalAssets, X2 = retainedEarnings / totalAssets, X3 = ebit / totalAssets,
 *   X4 = equity / debt (book equity over total liabilities). Altman's zones are distress below 1.1, grey
 *   from 1.1 to 2.6, safe above 2.6; the bands below put distress on 0..4, grey on 5..7, safe on 8..10.
 * - **A French ratios row** gives ratios, not a balance sheet: a scorecard over its own columns
 *   (`frenchRatiosHealth`), solvency 0..4 + liquidity 0..3 + profitability 0..3.
 *
 * Either is null when a figure it needs is not disclosed: a guess is never scored.
 */
import type { FinancialPeriod } from '../companies/schemas';

/** Altman's Z'' weights, in the order of X1..X4. */
export const Z2_WEIGHTS = [6.56, 3.26, 6.72, 1.05] as const;

/**
 * The band edges on Z'': a score at or above the n-th edge (counting from 1) is band n, below the
 * first is band 0. 1.1 and 2.6 are Altman's zone limits.
 */
export const Z2_BANDS = [-2, -1, 0, 0.55, 1.1, 1.6, 2.1, 2.6, 4, 6] as const;

/** X4 with no liabilities at all (debt 0) would be infinite: it is capped here. */
export const X4_CAP = 10;

/** The figures of a period the Z''-score reads. */
export type ZInputs = {
  netWorkingCapital: number | null;
  retainedEarnings: number | null;
  ebit: number | null;
  equity: number | null;
  debt: number | null;
  totalAssets: number | null;
};

export interface ZScore {
  x: [number, number, number, number];
  z: number;
  band: number;
}

/** The Z''-score of the figures, with its ratios and band; null when a figure is missing or no assets. */
export function altmanZ2(f: ZInputs): ZScore | null {
  const { netWorkingCapital, retainedEarnings, ebit, equity, debt, totalAssets } = f;
  if (
    netWorkingCapital === null ||
    retainedEarnings === null ||
    ebit === null ||
    equity === null ||
    debt === null ||
    totalAssets === null ||
    totalAssets <= 0
  )
    return null;
  const x4 = debt > 0 ? Math.min(equity / debt, X4_CAP) : equity >= 0 ? X4_CAP : -X4_CAP;
  const x: ZScore['x'] = [
    netWorkingCapital / totalAssets,
    retainedEarnings / totalAssets,
    ebit / totalAssets,
    x4,
  ];
  const z = x.reduce((sum, xi, i) => sum + Z2_WEIGHTS[i]! * xi, 0);
  return { x, z, band: bandOf(z, Z2_BANDS) };
}

/** The health indicator of a period's figures (Z'' banded to 0..10), or null when a figure is missing. */
export function healthOfFigures(
  period: Pick<FinancialPeriod, 'profitability' | 'liquidity' | 'solvency'>,
): number | null {
  return (
    altmanZ2({
      netWorkingCapital: period.liquidity.netWorkingCapital,
      retainedEarnings: period.solvency.retainedEarnings,
      ebit: period.profitability.ebit,
      equity: period.solvency.equity,
      debt: period.solvency.debt,
      totalAssets: period.solvency.totalAssets,
    })?.band ?? null
  );
}

/** The columns of a French ratios row the scorecard reads, in percent as the file gives them. */
export interface FrenchRatios {
  /** `autonomie_financiere`: equity / total balance sheet, %. */
  autonomieFinanciere: number | null;
  /** `ratio_de_liquidite`: current assets / short-term liabilities, %. */
  ratioDeLiquidite: number | null;
  /** `resultat_courant_avant_impots_sur_ca`: current profit before tax / revenue, %. */
  resultatCourantSurCa: number | null;
}

/** Each part's band edges (percent), lowest band first: a value at or above the n-th edge scores n. */
export const FRENCH_SCORECARD = {
  solvency: { column: 'autonomie_financiere', edges: [0, 10, 20, 35] },
  liquidity: { column: 'ratio_de_liquidite', edges: [80, 100, 150] },
  profitability: { column: 'resultat_courant_avant_impots_sur_ca', edges: [-5, 0, 5] },
} as const;

/**
 * A French ratios row's health: solvency (autonomie financière, 0..4) + liquidity (ratio de liquidité,
 * 0..3) + profitability (résultat courant avant impôts sur CA, 0..3); null when a column is empty.
 */
export function frenchRatiosHealth(r: FrenchRatios): number | null {
  if (r.autonomieFinanciere === null || r.ratioDeLiquidite === null || r.resultatCourantSurCa === null)
    return null;
  return (
    bandOf(r.autonomieFinanciere, FRENCH_SCORECARD.solvency.edges) +
    bandOf(r.ratioDeLiquidite, FRENCH_SCORECARD.liquidity.edges) +
    bandOf(r.resultatCourantSurCa, FRENCH_SCORECARD.profitability.edges)
  );
}

/** How many edges `value` is at or above. */
function bandOf(value: number, edges: readonly number[]): number {
  let band = 0;
  while (band < edges.length && value >= edges[band]!) band++;
  return band;
}
