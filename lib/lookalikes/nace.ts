/** NACE Rev. 2: the sections a code belongs to (what lookalikes compare within, contract §6.3). */

/** The NACE Rev. 2 sections (A–U) by their first and last two-digit division. */
const SECTIONS: ReadonlyArray<readonly [string, number, number]> = [
  ['A', 1, 3],
  ['B', 5, 9],
  ['C', 10, 33],
  ['D', 35, 35],
  ['E', 36, 39],
  ['F', 41, 43],
  ['G', 45, 47],
  ['H', 49, 53],
  ['I', 55, 56],
  ['J', 58, 63],
  ['K', 64, 66],
  ['L', 68, 68],
  ['M', 69, 75],
  ['N', 77, 82],
  ['O', 84, 84],
  ['P', 85, 85],
  ['Q', 86, 88],
  ['R', 90, 93],
  ['S', 94, 96],
  ['T', 97, 98],
  ['U', 99, 99],
];

/** The section letter of a NACE code (`41201` → `F`); null for a division outside every section. */
export function naceSection(code: string): string | null {
  const division = Number(code.slice(0, 2));
  return SECTIONS.find(([, first, last]) => division >= first && division <= last)?.[0] ?? null;
}
