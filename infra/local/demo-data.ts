/**
 * Deterministic demo data: fictional companies in BE, NL and FR, each with 1–10 yearly financial periods
 * whose figures hang together (equity + debt = total assets, ratios from the amounts shown, equity carried
 * over from year to year). Same seed and count → the same records, so local runs, tests and the README
 * examples agree. Company i depends only on the seed and i: a smaller count gives a prefix of a larger one.
 */
import type { Company, CompanyRecord } from '../../lib/companies/company';
import { belgianCheckDigits, frenchVatKey, luhnCheckDigit } from '../../lib/companies/identifiers';
import { COUNTRIES, type Country } from '../../lib/schemas/common';
import type { FinancialPeriod } from '../../lib/schemas/financials';

export interface DemoOptions {
  seed?: number;
  companies?: number;
}

export const DEFAULT_DEMO_COMPANIES = 3000;
const DEFAULT_SEED = 20241118;
/** Company numbers carry a 5-digit serial per country, which keeps them unique. */
const MAX_COMPANIES = 3 * 100_000;
const LAST_END_DATE = '2025-12-31';
const LAST_RECEIVED_DATE = '2026-11-20';

export function generateDemoData(options: DemoOptions = {}): CompanyRecord[] {
  const seed = options.seed ?? DEFAULT_SEED;
  const count = options.companies ?? DEFAULT_DEMO_COMPANIES;
  if (!Number.isSafeInteger(seed)) throw new RangeError('seed must be an integer');
  if (!Number.isInteger(count) || count < 0 || count > MAX_COMPANIES) {
    throw new RangeError(`companies must be an integer 0..${MAX_COMPANIES}`);
  }
  const usedNames = new Set<string>();
  const records: CompanyRecord[] = [];
  for (let index = 0; index < count; index++) {
    records.push(generateCompany(companyRng(seed, index), index, usedNames));
  }
  return records;
}

/** One company per country (BE, NL, FR) with at least 5 periods: the first such in generation order. */
export function pickExamples(records: CompanyRecord[]): CompanyRecord[] {
  return COUNTRIES.flatMap((country) => {
    const found = records.find((r) => r.company.country === country && r.periods.length >= 5);
    return found ? [found] : [];
  });
}

// Bound once: under jest 30 every lookup of a global (Math.floor, …) is dozens of times slower, and these run
// a million times per data set.
const { exp, floor, imul, log, max, min, round } = Math;

// ---------------------------------------------------------------------------------------------------------
// Randomness: mulberry32, seeded per company so that records do not depend on how many came before.

type Rng = () => number;

function mulberry32(seed: number): Rng {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = imul(t ^ (t >>> 15), t | 1);
    t ^= t + imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** murmur3's finaliser: spreads nearby seeds and indexes over unrelated streams. */
function fmix32(h: number): number {
  h = imul(h ^ (h >>> 16), 0x85ebca6b);
  h = imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

function companyRng(seed: number, index: number): Rng {
  const seedHash = fmix32((seed >>> 0) ^ fmix32(floor(seed / 2 ** 32)));
  return mulberry32(fmix32(seedHash ^ fmix32(index + 0x9e3779b9)));
}

const between = (rng: Rng, min: number, max: number): number => min + (max - min) * rng();
const intBetween = (rng: Rng, min: number, max: number): number => min + floor(rng() * (max - min + 1));
const chance = (rng: Rng, p: number): boolean => rng() < p;
const clamp = (x: number, low: number, high: number): number => min(high, max(low, x));

function pick<T>(rng: Rng, items: readonly T[]): T {
  return items[floor(rng() * items.length)]!;
}

/** Favours the first items (the lists put big towns first): index ~ n · r². */
function pickFront<T>(rng: Rng, items: readonly T[]): T {
  return items[floor(items.length * rng() ** 2)]!;
}

/** values[i] with probability weights[i] / Σ weights. */
function weighted<T>(rng: Rng, values: readonly T[], weights: readonly number[]): T {
  let r = rng() * weights.reduce((sum, w) => sum + w, 0);
  for (let i = 0; i < values.length; i++) {
    r -= weights[i]!;
    if (r < 0) return values[i]!;
  }
  return values[values.length - 1]!;
}

// ---------------------------------------------------------------------------------------------------------
// Vocabulary. Names are "<surname> <activity>", "<activity> <surname>", "<activity> <sign>" or
// "<invented brand> <activity>"; Dutch in Flanders and the Netherlands, French in Wallonia and France.

type Language = 'nl' | 'fr';

interface Words {
  /** Goes before a surname or sign: "Bakkerij", "Transports". */
  before: readonly string[];
  /** Goes after a surname or brand: "Logistics", "Conseil". */
  after: readonly string[];
}

interface Sector {
  nl: Words;
  fr: Words;
  weight: number;
  /** Gross margin / revenue. */
  grossMargin: readonly [number, number];
  /** Inventory / current assets. */
  inventory: readonly [number, number];
  /** Total assets per euro of revenue. */
  assets: readonly [number, number];
  /** Current assets / total assets. */
  currentAssets: readonly [number, number];
  /** Belgian joint committees: the first always, a second sometimes. */
  beCommittees: readonly string[];
  /** French collective agreements (IDCC): one is picked. */
  frIdcc: readonly string[];
}

const SECTORS: readonly Sector[] = [
  {
    nl: {
      before: ['Transport', 'Transportbedrijf'],
      after: ['Transport', 'Logistics', 'Logistiek', 'Koeriers'],
    },
    fr: { before: ['Transports', 'Logistique'], after: ['Logistique', 'Transports', 'Express'] },
    weight: 10,
    grossMargin: [0.3, 0.45],
    inventory: [0, 0.05],
    assets: [0.45, 0.8],
    currentAssets: [0.35, 0.7],
    beCommittees: ['140.03', '200'],
    frIdcc: ['0016'],
  },
  {
    nl: { before: ['Bouwbedrijf', 'Aannemingen', 'Dakwerken'], after: ['Bouw', 'Construct', 'Renovatie'] },
    fr: {
      before: ['Construction', 'Entreprise', 'Toitures'],
      after: ['Construction', 'Rénovation', 'Bâtiment'],
    },
    weight: 15,
    grossMargin: [0.3, 0.45],
    inventory: [0.05, 0.25],
    assets: [0.5, 0.9],
    currentAssets: [0.45, 0.8],
    beCommittees: ['124', '200'],
    frIdcc: ['1597', '1596', '2609'],
  },
  {
    nl: {
      before: ['Bakkerij', 'Brouwerij', 'Slagerij', 'Kaasmakerij'],
      after: ['Food', 'Voeding', 'Chocolade'],
    },
    fr: {
      before: ['Boulangerie', 'Brasserie', 'Boucherie', 'Fromagerie', 'Chocolaterie'],
      after: ['Traiteur', 'Gourmet', 'Alimentation'],
    },
    weight: 9,
    grossMargin: [0.35, 0.55],
    inventory: [0.15, 0.35],
    assets: [0.5, 0.9],
    currentAssets: [0.35, 0.7],
    beCommittees: ['118', '220'],
    frIdcc: ['0843', '1747'],
  },
  {
    nl: { before: ['Hotel', 'Restaurant', 'Eetcafé', 'Brasserie'], after: ['Horeca', 'Catering', 'Events'] },
    fr: {
      before: ['Hôtel', 'Restaurant', 'Bistrot', 'Auberge'],
      after: ['Restauration', 'Catering', 'Hôtellerie'],
    },
    weight: 10,
    grossMargin: [0.55, 0.7],
    inventory: [0.03, 0.1],
    assets: [0.6, 1.2],
    currentAssets: [0.15, 0.4],
    beCommittees: ['302'],
    frIdcc: ['1979'],
  },
  {
    nl: { before: ['Metaalbouw', 'Machinebouw'], after: ['Metaal', 'Engineering', 'Techniek', 'Machines'] },
    fr: {
      before: ['Mécanique', 'Ateliers', 'Chaudronnerie'],
      after: ['Industrie', 'Mécanique', 'Engineering'],
    },
    weight: 9,
    grossMargin: [0.35, 0.5],
    inventory: [0.2, 0.4],
    assets: [0.6, 1.0],
    currentAssets: [0.4, 0.7],
    beCommittees: ['111', '209'],
    frIdcc: ['3248'],
  },
  {
    nl: {
      before: ['Adviesbureau'],
      after: ['Consult', 'Software', 'IT Solutions', 'Digital', 'ICT', 'Advies'],
    },
    fr: {
      before: ['Cabinet', 'Conseil'],
      after: ['Conseil', 'Informatique', 'Digital', 'Solutions', 'Consulting'],
    },
    weight: 14,
    grossMargin: [0.6, 0.85],
    inventory: [0, 0.02],
    assets: [0.35, 0.7],
    currentAssets: [0.55, 0.85],
    beCommittees: ['200'],
    frIdcc: ['1486'],
  },
  {
    nl: { before: ['Groothandel', 'Handelshuis'], after: ['Trading', 'Distributie', 'Handel', 'Import'] },
    fr: {
      before: ['Négoce', 'Comptoir', 'Distribution'],
      after: ['Distribution', 'Négoce', 'Import', 'Commerce'],
    },
    weight: 15,
    grossMargin: [0.12, 0.3],
    inventory: [0.3, 0.5],
    assets: [0.3, 0.6],
    currentAssets: [0.55, 0.85],
    beCommittees: ['226', '200', '201'],
    frIdcc: ['2216', '0573'],
  },
  {
    nl: { before: ['Schoonmaakbedrijf'], after: ['Cleaning', 'Schoonmaak', 'Facility', 'Services'] },
    fr: { before: ['Nettoyage', 'Propreté'], after: ['Services', 'Nettoyage', 'Propreté', 'Facility'] },
    weight: 6,
    grossMargin: [0.75, 0.9],
    inventory: [0, 0.03],
    assets: [0.25, 0.5],
    currentAssets: [0.5, 0.85],
    beCommittees: ['121'],
    frIdcc: ['3043'],
  },
  {
    nl: { before: ['Immo', 'Vastgoed'], after: ['Vastgoed', 'Invest', 'Immo', 'Beheer', 'Holding'] },
    fr: {
      before: ['Immobilière', 'Immo', 'Patrimoine'],
      after: ['Immobilier', 'Invest', 'Gestion', 'Holding'],
    },
    weight: 12,
    grossMargin: [0.65, 0.9],
    inventory: [0, 0.05],
    assets: [3, 8],
    currentAssets: [0.05, 0.3],
    beCommittees: ['200', '323'],
    frIdcc: ['1527'],
  },
];

const SECTOR_WEIGHTS = SECTORS.map((s) => s.weight);

/** "a, b,\n c d" → ['a', 'b', 'c d']: keeps word lists compact (prettier leaves template strings alone). */
function list(text: string): readonly string[] {
  return text
    .split(',')
    .map((word) => word.replace(/\s+/g, ' ').trim())
    .filter((word) => word.length > 0);
}

const SURNAMES = {
  flemish: list(`
    Peeters, Janssens, Maes, Jacobs, Mertens, Willems, Claes, Goossens, Wouters, De Smet, Van Damme,
    Vermeulen, Verstraete, De Backer, Hermans, Van den Broeck, Dewulf, Lemmens, Vandenberghe, Coppens,
    Declercq, Martens, Aerts, Michiels, Smets, Pauwels, Cools`),
  walloon: list(`
    Dubois, Lambert, Dupont, Martin, Leclercq, Lejeune, Renard, Denis, Simon, Laurent, Dumont, Lemaire,
    Gilson, Collard, François, Mathieu, Henrard, Piette, Delvaux, Lecomte, Bodart, Marchal, Thiry, Hubert,
    Gérard`),
  dutch: list(`
    De Jong, Jansen, De Vries, Van den Berg, Bakker, Visser, Smit, Meijer, De Boer, Mulder, De Groot, Bos,
    Vos, Hendriks, Van Leeuwen, Dekker, Brouwer, De Wit, Dijkstra, De Graaf, Van der Meer, Kok, Van Dijk,
    Postma, Kuipers, Van Vliet, Verhoeven, Schouten`),
  french: list(`
    Martin, Bernard, Dubois, Thomas, Robert, Richard, Petit, Durand, Leroy, Moreau, Simon, Laurent,
    Lefebvre, Michel, Garcia, David, Bertrand, Roux, Vincent, Fournier, Morel, Girard, André, Mercier,
    Dupont, Lambert, Bonnet, Legrand, Garnier, Faure, Rousseau`),
};

const SIGNS: Record<Language, readonly string[]> = {
  nl: list(`
    De Kroon, Het Anker, De Molen, De Zwaan, De Eik, De Linde, De Ster, De Hoorn, De Klok, De Sleutel, De
    Gouden Leeuw, De Brug, Het Zuiden, De Haven, De Toren`),
  fr: list(`
    du Parc, de la Gare, du Centre, du Moulin, des Halles, du Lac, de l'Étoile, du Marché, des Tilleuls, du
    Pont, de la Source, du Château, du Port, Saint-Michel, de la Meuse`),
};

/** Invented brands: one head + one tail ("Novaris", "Altexa"). */
const BRAND_HEADS = list(
  'Al, Be, Cor, Da, El, Fi, Gra, Hex, In, Jo, Ka, Lu, Mar, No, Or, Pra, Qua, Ro, Sa, Tri, Ve, Zen',
);
const BRAND_TAILS = list('tix, vara, nova, ris, lio, sys, tera, mex, ando, vio, lux, gon, texa, dis, rium');

/** Real towns, biggest first (pickFront favours them). */
const TOWNS = {
  flanders: list(`
    Antwerpen, Gent, Brugge, Leuven, Mechelen, Aalst, Hasselt, Kortrijk, Oostende, Genk, Sint-Niklaas,
    Roeselare, Turnhout, Lier, Ieper, Waregem, Dendermonde, Geel`),
  wallonia: list(`
    Charleroi, Liège, Namur, Mons, La Louvière, Tournai, Verviers, Seraing, Wavre, Nivelles, Waterloo,
    Arlon, Huy, Mouscron`),
  netherlands: list(`
    Amsterdam, Rotterdam, Den Haag, Utrecht, Eindhoven, Groningen, Tilburg, Almere, Breda, Nijmegen, Arnhem,
    Haarlem, Enschede, Amersfoort, Apeldoorn, 's-Hertogenbosch, Zwolle, Leiden, Maastricht, Dordrecht,
    Zoetermeer, Delft, Alkmaar, Venlo, Leeuwarden`),
  france: list(`
    Paris, Marseille, Lyon, Toulouse, Nice, Nantes, Montpellier, Strasbourg, Bordeaux, Lille, Rennes, Reims,
    Toulon, Saint-Étienne, Le Havre, Grenoble, Dijon, Angers, Nîmes, Clermont-Ferrand, Le Mans,
    Aix-en-Provence, Brest, Tours, Amiens, Limoges, Annecy, Rouen, Metz, Orléans`),
};

type Size = 'micro' | 'small' | 'medium' | 'large';

/** Legal forms by size: small firms pick the cheap private forms, large ones the public company. */
function legalForm(rng: Rng, country: Country, language: Language, size: Size): string {
  const big = size === 'large' || (size === 'medium' && chance(rng, 0.4));
  switch (country) {
    case 'BE':
      if (language === 'nl') return big ? 'NV' : weighted(rng, ['BV', 'CommV'], [12, 1]);
      return big ? 'SA' : 'SRL';
    case 'NL':
      if (big) return size === 'large' && chance(rng, 0.3) ? 'N.V.' : 'B.V.';
      return size === 'micro' && chance(rng, 0.2) ? 'V.O.F.' : 'B.V.';
    case 'FR':
      if (big) return weighted(rng, ['SA', 'SAS'], [1, 2]);
      if (size === 'micro') return weighted(rng, ['SARL', 'EURL', 'SASU', 'SAS'], [3, 2, 2, 1]);
      return weighted(rng, ['SAS', 'SARL'], [3, 2]);
  }
}

function nameStem(rng: Rng, language: Language, surnames: readonly string[], sector: Sector): string {
  const words = sector[language];
  switch (weighted(rng, ['surname-after', 'before-surname', 'before-sign', 'brand'] as const, [4, 3, 2, 2])) {
    case 'surname-after':
      return `${pick(rng, surnames)} ${pick(rng, words.after)}`;
    case 'before-surname':
      return `${pick(rng, words.before)} ${pick(rng, surnames)}`;
    case 'before-sign':
      return `${pick(rng, words.before)} ${pick(rng, SIGNS[language])}`;
    case 'brand':
      return `${pick(rng, BRAND_HEADS)}${pick(rng, BRAND_TAILS)} ${pick(rng, words.after)}`;
  }
}

/** "Brasserie de l'Étoile" → "brasserie-de-l-etoile". */
function slug(text: string): string {
  return text
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
}

const pad = (n: number, width: number): string => `${n}`.padStart(width, '0');

// ---------------------------------------------------------------------------------------------------------
// Companies

function generateCompany(rng: Rng, index: number, usedNames: Set<string>): CompanyRecord {
  const country = COUNTRIES[index % COUNTRIES.length]!;
  const serial = floor(index / COUNTRIES.length);
  const sector = weighted(rng, SECTORS, SECTOR_WEIGHTS);
  const size = weighted<Size>(rng, ['micro', 'small', 'medium', 'large'], [45, 30, 17, 8]);
  const periodCount = intBetween(rng, 1, 10);

  let place: string;
  let language: Language;
  let surnames: readonly string[];
  if (country === 'BE') {
    const region = weighted(rng, ['flanders', 'wallonia', 'brussels'] as const, [55, 30, 15]);
    if (region === 'brussels') {
      // Brussels is bilingual: its companies register in either language.
      language = chance(rng, 0.7) ? 'fr' : 'nl';
      place = language === 'fr' ? 'Bruxelles' : 'Brussel';
    } else {
      language = region === 'flanders' ? 'nl' : 'fr';
      place = pickFront(rng, TOWNS[region]);
    }
    surnames = language === 'nl' ? SURNAMES.flemish : SURNAMES.walloon;
  } else if (country === 'NL') {
    place = pickFront(rng, TOWNS.netherlands);
    language = 'nl';
    surnames = SURNAMES.dutch;
  } else {
    place = pickFront(rng, TOWNS.france);
    language = 'fr';
    surnames = SURNAMES.french;
  }

  // Retry a few times on a clash: names should mostly be unique, but need not be.
  let stem = '';
  let name = '';
  for (let attempt = 0; attempt < 6; attempt++) {
    stem = nameStem(rng, language, surnames, sector);
    name = `${stem} ${legalForm(rng, country, language, size)}`;
    if (!usedNames.has(name)) break;
  }
  usedNames.add(name);

  const companyNumber = makeCompanyNumber(rng, country, serial, periodCount <= 2);
  const company: Company = {
    country,
    companyNumber,
    name,
    place,
    vatNumber: vatNumber(rng, country, companyNumber, serial),
    website: chance(rng, 0.1) ? null : `https://www.${slug(stem)}.${country.toLowerCase()}`,
  };
  return { company, periods: generatePeriods(rng, country, sector, size, periodCount) };
}

/** The serial sits at a fixed place in every number, which makes numbers unique per country. */
function makeCompanyNumber(rng: Rng, country: Country, serial: number, young: boolean): string {
  switch (country) {
    case 'BE': {
      // Numbers handed out since 2023 start with 1; older ones with 0.
      const head = young && chance(rng, 0.4) ? '10' : `0${intBetween(rng, 2, 9)}`;
      const firstEight = `${head}${pad(serial, 5)}${intBetween(rng, 0, 9)}`;
      return firstEight + belgianCheckDigits(firstEight);
    }
    case 'NL':
      return `${intBetween(rng, 1, 9)}${pad(serial, 5)}${pad(intBetween(rng, 0, 99), 2)}`;
    case 'FR': {
      const body = `${intBetween(rng, 3, 9)}${pad(serial, 5)}${pad(intBetween(rng, 0, 99), 2)}`;
      return body + luhnCheckDigit(body);
    }
  }
}

function vatNumber(rng: Rng, country: Country, companyNumber: string, serial: number): string {
  switch (country) {
    case 'BE':
      return `BE${companyNumber}`;
    case 'NL':
      // The Dutch VAT id is unrelated to the KvK number: 9 digits + B01 (fictional, but shaped right).
      return `NL${intBetween(rng, 1, 9)}${pad(serial, 5)}${pad(intBetween(rng, 0, 999), 3)}B01`;
    case 'FR':
      return `FR${pad(frenchVatKey(companyNumber), 2)}${companyNumber}`;
  }
}

// ---------------------------------------------------------------------------------------------------------
// Financial periods

/**
 * healthIndicator = solvency (0–4) + liquidity (0–3) + profitability (0–3), so 0..10, higher is healthier:
 *   equity / totalAssets     < 0 → 0,  < 10% → 1, < 25% → 2, < 40% → 3, else 4
 *   currentRatio             < 0.8 → 0, < 1 → 1, < 1.5 → 2, else 3
 *   netProfit / totalAssets  < −5% → 0, < 0 → 1, < 5% → 2, else 3
 * Return on assets rather than on revenue, so abbreviated accounts (no revenue) score the same way.
 */
function healthIndicator(equityRatio: number, currentRatio: number, returnOnAssets: number): number {
  const solvency =
    equityRatio < 0 ? 0 : equityRatio < 0.1 ? 1 : equityRatio < 0.25 ? 2 : equityRatio < 0.4 ? 3 : 4;
  const liquidity = currentRatio < 0.8 ? 0 : currentRatio < 1 ? 1 : currentRatio < 1.5 ? 2 : 3;
  const profitability = returnOnAssets < -0.05 ? 0 : returnOnAssets < 0 ? 1 : returnOnAssets < 0.05 ? 2 : 3;
  return solvency + liquidity + profitability;
}

const toCents = (eur: number): number => round(eur * 100);
/** Integer cents / 100 is the closest double to the 2-decimal amount, so it prints with ≤ 2 decimals. */
const fromCents = (cents: number): number => cents / 100;
const ratio4 = (x: number): number => round(x * 10_000) / 10_000;

function generatePeriods(
  rng: Rng,
  country: Country,
  sector: Sector,
  size: Size,
  count: number,
): FinancialPeriod[] {
  const dates = periodDates(rng, count);

  // Company traits. `quality` drives margins, solvency and liquidity; declining firms lose it year by year.
  const declining = chance(rng, 0.15);
  const quality0 = (rng() + rng()) / 2;
  const drift = declining ? between(rng, -0.15, -0.05) : between(rng, -0.02, 0.03);
  const trend = declining ? between(rng, -0.12, -0.02) : between(rng, -0.03, 0.12);
  let workforce = initialWorkforce(rng, size);
  const costPerFte = between(rng, 40_000, 66_000);
  const grossMarginRate = between(rng, ...sector.grossMargin);
  const inventoryShare = between(rng, ...sector.inventory);
  const assetIntensity = between(rng, ...sector.assets);
  const currentAssetShare = between(rng, ...sector.currentAssets);
  const depreciationRate = between(rng, 0.03, 0.1);
  const retention = between(rng, 0.2, 0.7);
  // Firms without staff (holdings, one-person firms) are sized by gross margin instead.
  let ownerMargin = size === 'micro' ? between(rng, 30_000, 300_000) : 0;
  // Small Belgian companies (≤ 50 FTE) may file abbreviated accounts, where revenue is optional and usually
  // left out; a company that outgrows that files full accounts from then on.
  const abbreviating = country === 'BE' && (size === 'micro' || size === 'small') && chance(rng, 0.6);
  const committees = jointCommitteeCodes(rng, country, sector);

  const periods: FinancialPeriod[] = [];
  let previousEquity = 0;
  let previousDebt = 0;
  let previousEmployees: number | null = null;
  for (let t = 0; t < count; t++) {
    const quality = clamp(quality0 + drift * t + between(rng, -0.08, 0.08), -0.4, 1.05);
    if (t > 0) {
      workforce *= 1 + trend + between(rng, -0.06, 0.06);
      ownerMargin *= 1 + trend + between(rng, -0.05, 0.05);
    }
    const employees = round(workforce);
    // (personnel costs + depreciation) / gross margin: above 1 is an operating loss.
    const costShare = 1.06 - 0.35 * quality + between(rng, -0.06, 0.06);

    let personnelCosts: number;
    let grossMargin: number;
    let depreciation: number;
    if (employees > 0) {
      personnelCosts = employees * costPerFte * 1.02 ** t * between(rng, 0.97, 1.03);
      grossMargin = personnelCosts / max(0.25, costShare - depreciationRate);
      depreciation = grossMargin * depreciationRate;
    } else {
      personnelCosts = 0;
      grossMargin = max(ownerMargin, 10_000);
      depreciation = grossMargin * clamp(costShare - 0.1, 0.03, 1.3);
    }
    const revenue = grossMargin / grossMarginRate;

    const gmC = toCents(grossMargin);
    const pcC = toCents(personnelCosts);
    const depC = toCents(depreciation);
    const opC = gmC - pcC - depC;
    const ebitdaC = opC + depC;

    let totalAssets = revenue * assetIntensity * between(rng, 0.95, 1.05);
    const openingDebt = t === 0 ? totalAssets * 0.6 : max(previousDebt, 0);
    const beforeTax = fromCents(opC) - openingDebt * 0.03;
    const netProfit = beforeTax > 0 ? beforeTax * 0.75 : beforeTax;
    const npC = toCents(netProfit);

    // Equity: an opening ratio in the first year, then last year's equity plus the retained part of the
    // profit (losses are borne in full).
    let equity: number;
    if (t === 0) {
      equity = totalAssets * clamp(-0.05 + 0.55 * quality + between(rng, -0.12, 0.12), -0.15, 0.85);
    } else {
      equity = previousEquity + (npC > 0 ? fromCents(npC) * retention : fromCents(npC));
    }
    // Debt (suppliers, tax, provisions) is never below 15% of the balance sheet.
    if (equity > 0) totalAssets = max(totalAssets, equity / 0.85);
    const taC = toCents(totalAssets);
    const eqC = toCents(equity);
    const debtC = taC - eqC;

    const caC = toCents(fromCents(taC) * currentAssetShare * between(rng, 0.9, 1.1));
    const invC = toCents(fromCents(caC) * inventoryShare);
    const cashShare = clamp(0.1 + 0.4 * quality + between(rng, -0.1, 0.1), 0.02, 0.8);
    const cashC = toCents(fromCents(caC - invC) * cashShare);
    const targetCurrentRatio = clamp(0.45 + 1.6 * quality + between(rng, -0.25, 0.25), 0.25, 4);
    // Current liabilities are part of the debt.
    const clC = max(1, min(toCents(fromCents(caC) / targetCurrentRatio), round(debtC * 0.95)));

    const currentRatio = ratio4(caC / clC);
    const health = healthIndicator(eqC / taC, caC / clC, npC / taC);

    periods.push({
      startDate: dates[t]!.startDate,
      endDate: dates[t]!.endDate,
      dateReceived: dates[t]!.dateReceived,
      profitability: {
        revenue: abbreviating && employees <= 50 ? null : fromCents(toCents(revenue)),
        grossMargin: fromCents(gmC),
        ebitda: fromCents(ebitdaC),
        operatingProfit: fromCents(opC),
        netProfit: fromCents(npC),
      },
      liquidity: {
        currentAssets: fromCents(caC),
        inventory: fromCents(invC),
        cash: fromCents(cashC),
        currentLiabilities: fromCents(clC),
        currentRatio,
        quickRatio: ratio4((caC - invC) / clC),
      },
      solvency: {
        totalAssets: fromCents(taC),
        equity: fromCents(eqC),
        debt: fromCents(debtC),
      },
      people: {
        employees,
        personnelCosts: fromCents(pcC),
        employeeCostRatio: gmC > 0 ? ratio4(pcC / gmC) : null,
        employeeGrowthRatio:
          previousEmployees !== null && previousEmployees > 0
            ? ratio4(employees / previousEmployees - 1)
            : null,
      },
      healthIndicator: health,
      jointCommitteeCodes: [...committees],
    });
    previousEquity = fromCents(eqC);
    previousDebt = fromCents(debtC);
    previousEmployees = employees;
  }
  // Newest first, the order the API answers in.
  return periods.reverse();
}

function initialWorkforce(rng: Rng, size: Size): number {
  switch (size) {
    case 'micro':
      // Many micro companies have no staff at all (a manager paid as a self-employed director).
      return chance(rng, 0.35) ? 0 : between(rng, 0.6, 9.4);
    case 'small':
      return between(rng, 10, 49);
    case 'medium':
      return between(rng, 50, 249);
    case 'large':
      // Log-uniform: most large firms have a few hundred staff, a few several thousand.
      return 250 * exp(between(rng, 0, log(20)));
  }
}

function jointCommitteeCodes(rng: Rng, country: Country, sector: Sector): string[] {
  switch (country) {
    case 'BE': {
      const [first, ...others] = sector.beCommittees;
      return others.length > 0 && chance(rng, 0.5) ? [first!, pick(rng, others)] : [first!];
    }
    case 'FR':
      return [pick(rng, sector.frIdcc)];
    case 'NL':
      return [];
  }
}

interface PeriodDates {
  startDate: string;
  endDate: string;
  dateReceived: string;
}

/** `count` consecutive fiscal years, oldest first, the newest ending no later than 2025-12-31. */
function periodDates(rng: Rng, count: number): PeriodDates[] {
  // About 15% of companies close their books on 30 June.
  const midYear = chance(rng, 0.15);
  const lastYear = midYear
    ? weighted(rng, [2025, 2024, 2023], [6, 3, 1])
    : weighted(rng, [2025, 2024, 2023, 2022], [55, 30, 10, 5]);
  const dates: PeriodDates[] = [];
  for (let year = lastYear - count + 1; year <= lastYear; year++) {
    const startDate = midYear ? `${year - 1}-07-01` : `${year}-01-01`;
    const endDate = midYear ? `${year}-06-30` : `${year}-12-31`;
    // 92..211 days is within 3 to 7 months after either closing date.
    const received = fromDayNumber(
      toDayNumber(year, midYear ? 6 : 12, midYear ? 30 : 31) + intBetween(rng, 92, 211),
    );
    dates.push({
      startDate,
      endDate,
      dateReceived: received < LAST_RECEIVED_DATE ? received : LAST_RECEIVED_DATE,
    });
  }
  if (dates[dates.length - 1]!.endDate > LAST_END_DATE) throw new Error('unreachable: period after 2025');
  return dates;
}

/** Days since 1970-01-01 (proleptic Gregorian), after Hinnant's days-from-civil: faster than Date objects. */
function toDayNumber(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = floor(y / 400);
  const yearOfEra = y - era * 400;
  const dayOfYear = floor((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5) + day - 1;
  const dayOfEra = yearOfEra * 365 + floor(yearOfEra / 4) - floor(yearOfEra / 100) + dayOfYear;
  return era * 146_097 + dayOfEra - 719_468;
}

function fromDayNumber(dayNumber: number): string {
  const z = dayNumber + 719_468;
  const era = floor(z / 146_097);
  const dayOfEra = z - era * 146_097;
  const yearOfEra = floor(
    (dayOfEra - floor(dayOfEra / 1460) + floor(dayOfEra / 36_524) - floor(dayOfEra / 146_096)) / 365,
  );
  const dayOfYear = dayOfEra - (365 * yearOfEra + floor(yearOfEra / 4) - floor(yearOfEra / 100));
  const mp = floor((5 * dayOfYear + 2) / 153);
  const day = dayOfYear - floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  const year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0);
  return `${year}-${pad(month, 2)}-${pad(day, 2)}`;
}
