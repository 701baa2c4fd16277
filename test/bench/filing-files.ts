/**
 * The filing benches' generated inputs (test/bench/filings.ts, filing-import.ts): CBSO filings' files,
 * a company's three years apart as a day's batch has them, and French ratios files, with valid company
 * numbers.
 */
import { createWriteStream, mkdirSync, writeFileSync } from 'node:fs';
import { once } from 'node:events';
import path from 'node:path';

/** A valid Belgian enterprise number (mod 97) for the n-th company. */
export function belgianNumber(n: number): string {
  const base = 1_000_000 + (n % 8_999_999);
  return `0${base}${String(97 - (base % 97)).padStart(2, '0')}`;
}

/** A valid SIREN (Luhn) for the n-th company. */
function siren(n: number): string {
  const base = String(300_000_000 + (n % 600_000_000)).slice(0, 8);
  for (let d = 0; d < 10; d++) {
    const digits = `${base}${d}`;
    let sum = 0;
    for (let i = 0; i < 9; i++) {
      let x = Number(digits[8 - i]);
      if (i % 2 === 1) x = x * 2 > 9 ? x * 2 - 9 : x * 2;
      sum += x;
    }
    if (sum % 10 === 0) return digits;
  }
  throw new Error('no Luhn digit');
}

/** `count` CBSO filings' files, a company's three years apart (as a day's batch has them), in name order. */
export function* cbsoFiles(count: number): Generator<{ name: string; data: string }> {
  for (let i = 0; i < count; i++) {
    const company = Math.floor(i / 3);
    const year = 2021 + (i % 3);
    const ref = `${year + 1}-${String(i).padStart(8, '0')}`;
    const scale = 1 + (i % 97) / 10;
    const value = (x: number) => (x * scale).toFixed(2);
    const rubrics = Object.entries({
      '9900': 640_000,
      '9901': 70_000,
      '630': 25_000,
      '9904': 48_000,
      '20/58': 820_000,
      '29/58': 500_000,
      '3': 90_000,
      '54/58': 120_000,
      '10/15': 310_000,
      '13': 18_600,
      '14': 240_000,
      '17': 150_000,
      '42/48': 330_000,
      '43': 40_000,
      '44': 180_000,
      '9087': 7.8,
    }).flatMap(([Code, x]) => [
      { Code, Period: 'N', Value: value(x) },
      { Code, Period: 'NM1', Value: value(x * 0.9) },
    ]);
    yield { name: `${ref}.accountingData.json`, data: JSON.stringify({ Rubrics: rubrics }) };
    yield {
      name: `${ref}.reference.json`,
      data: JSON.stringify({
        ReferenceNumber: ref,
        DepositDate: `${year + 1}-06-30`,
        ExerciseDates: { startDate: `${year}-01-01`, endDate: `${year}-12-31` },
        ModelType: 'm02-f',
        EnterpriseNumber: belgianNumber(company * 7919),
      }),
    };
  }
}

/** `count` CBSO filings as a folder (written synchronously: hundreds of thousands of small files). */
export async function writeCbso(dir: string, count: number): Promise<void> {
  mkdirSync(dir, { recursive: true });
  for (const { name, data } of cbsoFiles(count)) writeFileSync(path.join(dir, name), data);
}

const RATIOS_HEADER =
  'siren;date_cloture_exercice;chiffre_d_affaires;marge_brute;ebe;ebit;resultat_net;taux_d_endettement;ratio_de_liquidite;ratio_de_vetuste;autonomie_financiere;poids_bfr_exploitation_sur_ca;couverture_des_interets;caf_sur_ca;capacite_de_remboursement;marge_ebe;resultat_courant_avant_impots_sur_ca;poids_bfr_exploitation_sur_ca_jours;rotation_des_stocks_jours;credit_clients_jours;credit_fournisseurs_jours;type_bilan;confidentiality';

/** A ratios file of `count` rows, in no company order (as the published file). */
export async function writeRatios(file: string, count: number): Promise<void> {
  const out = createWriteStream(file);
  let chunk = `\uFEFF${RATIOS_HEADER}\n`;
  for (let i = 0; i < count; i++) {
    const company = (i * 7919) % Math.max(1, Math.floor(count / 3));
    const ca = 100_000 + (i % 1000) * 1000;
    chunk +=
      `${siren(company)};${2021 + (i % 3)}-12-31;${ca};${ca * 0.4};${ca * 0.12};${ca * 0.09};${ca * 0.05};` +
      `45.120;${90 + (i % 80)}.500;60.200;${(i % 60) - 5}.400;12.100;3.200;9.800;2.100;12.500;${(i % 20) - 6}.900;` +
      `44.000;30.500;61.000;55.000;${'KCS'[i % 3]};Public\n`;
    if (chunk.length > 1 << 16) {
      if (!out.write(chunk)) await once(out, 'drain');
      chunk = '';
    }
  }
  out.end(chunk);
  await once(out, 'close');
}
