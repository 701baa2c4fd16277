/**
 * Deterministic demo data: fictional BE, NL and FR companies as company records (contract §11.1), each
 * with 1–10 yearly financial periods whose figures satisfy every identity of §6.1, NACE activities that
 * fit its name, shareholders (holding groups, joint ventures, families, foreign holders) and contacts.
 *
 * Company i depends only on (seed, i): a smaller count gives a prefix of a larger data set, and the CLI
 * can stream any count without holding it. A company's identity (number, name, place, activity, size,
 * dates) comes from one random stream and all the rest from a second, so a shareholder's number and exact
 * name are recomputed without generating its periods. A holder always has a smaller index than the
 * company it holds: ownership has no cycles and a prefix never names a company it does not contain.
 */
import {
  belgianCheckDigits,
  COUNTRIES,
  frenchVatKey,
  luhnCheckDigit,
  type Country,
} from '../../lib/companies/identifiers';
import type { CompanyRecordInput } from '../../lib/companies/record';
import type { FinancialPeriod } from '../../lib/companies/schemas';

export interface DemoOptions {
  seed?: number;
  companies?: number;
  /**
   * `current` (default): the data as of DEMO_AS_OF. `older`: the same companies as the registries had
   * them on DEMO_SNAPSHOT_DATE — without the periods received since, and with people who have left
   * since (see `olderSnapshot`). Importing the older snapshot, then the current one, derives updates of
   * every type (contract §8.2).
   */
  snapshot?: DemoSnapshot;
}

export type DemoSnapshot = 'current' | 'older';
export const DEMO_SNAPSHOTS: readonly DemoSnapshot[] = ['older', 'current'];

/** A shareholder as the demo writes it: a person has neither `country` nor `companyNumber`. */
export interface DemoShareholder {
  country?: string;
  companyNumber?: string;
  name: string;
  percentage: number;
}

export interface DemoContact {
  contactId: number;
  firstName: string;
  lastName: string;
  jobTitle: string;
}

/** A company record (§11.1) with every field present, canonical number, periods newest first. */
export interface DemoRecord extends CompanyRecordInput {
  country: Country;
  companyNumber: string;
  name: string;
  place: string;
  vatNumber: string;
  website: string | null;
  legalForm: string;
  foundedOn: string;
  activities: string[];
  financials: FinancialPeriod[];
  shareholders: DemoShareholder[];
  contacts: DemoContact[];
}

export const DEFAULT_DEMO_COMPANIES = 3000;
const DEFAULT_SEED = 20241118;
/** Company numbers carry a 6-digit serial per country, which keeps them unique. */
const MAX_COMPANIES = COUNTRIES.length * 1_000_000;
const LAST_RECEIVED_DATE = '2026-11-20';

/** The companies one by one, generated as they are asked for (the CLI streams 100,000 and more). */
export function demoRecords(options: DemoOptions = {}): Generator<DemoRecord> {
  const seed = options.seed ?? DEFAULT_SEED;
  const count = options.companies ?? DEFAULT_DEMO_COMPANIES;
  // Checked here, not in the generator body, so that a bad option fails at the call.
  if (!Number.isSafeInteger(seed)) throw new RangeError('seed must be an integer');
  if (!Number.isInteger(count) || count < 0 || count > MAX_COMPANIES) {
    throw new RangeError(`companies must be an integer 0..${MAX_COMPANIES}`);
  }
  return generate(new Identities(seed), count, options.snapshot ?? 'current');
}

export function generateDemoData(options: DemoOptions = {}): DemoRecord[] {
  return [...demoRecords(options)];
}

/** One company per country (BE, NL, FR) with at least 5 periods: the first such in the data. */
export function pickExamples<T extends CompanyRecordInput>(records: readonly T[]): T[] {
  return COUNTRIES.flatMap((country) => {
    const found = records.find((r) => r.country === country && (r.financials?.length ?? 0) >= 5);
    return found ? [found] : [];
  });
}

function* generate(identities: Identities, count: number, snapshot: DemoSnapshot): Generator<DemoRecord> {
  for (let index = 0; index < count; index++) {
    const company = generateCompany(identities, index);
    yield snapshot === 'older' ? olderSnapshot(identities, index, company) : company;
  }
}

/**
 * The older snapshot of records generated with this seed (the demo seed by default), in their generated
 * order: what `demoRecords({ snapshot: 'older' })` gives, without generating them again.
 */
export function olderSnapshotOf(records: readonly DemoRecord[], seed = DEFAULT_SEED): DemoRecord[] {
  const identities = new Identities(seed);
  return records.map((company, index) => olderSnapshot(identities, index, company));
}

// Bound once: under jest every lookup of a global (Math.floor, …) is dozens of times slower, and these run
// millions of times per data set.
const { exp, floor, imul, log, max, min, round } = Math;

// ---------------------------------------------------------------------------------------------------------
// Randomness: mulberry32, seeded per company and stream so that a record never depends on the ones before.

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

/** Independent streams of one company: its identity, its details, whether it is a holding, its past. */
const Stream = { Identity: 0, Details: 1, Holding: 2, History: 3 } as const;
type Stream = (typeof Stream)[keyof typeof Stream];

const streamSeed = (seedHash: number, index: number, stream: Stream): number =>
  fmix32(seedHash ^ fmix32(index * 4 + stream + 0x9e3779b9));

const between = (rng: Rng, low: number, high: number): number => low + (high - low) * rng();
const intBetween = (rng: Rng, low: number, high: number): number => low + floor(rng() * (high - low + 1));
const chance = (rng: Rng, p: number): boolean => rng() < p;
const clamp = (x: number, low: number, high: number): number => min(high, max(low, x));

function pick<T>(rng: Rng, items: readonly T[]): T {
  return items[floor(rng() * items.length)]!;
}

/** Favours the first items (the lists put big towns first): index ~ n · r². */
function pickFront<T>(rng: Rng, items: readonly T[]): T {
  const r = rng();
  return items[floor(items.length * r * r)]!;
}

/** values[i] with probability weights[i] / Σ weights. */
function weighted<T>(rng: Rng, values: readonly T[], weights: readonly number[]): T {
  let total = 0;
  for (const w of weights) total += w;
  let r = rng() * total;
  for (let i = 0; i < values.length; i++) {
    r -= weights[i]!;
    if (r < 0) return values[i]!;
  }
  return values[values.length - 1]!;
}

// ---------------------------------------------------------------------------------------------------------
// Vocabulary. Names are "<surname> <activity>", "<activity> <surname>", "<activity> <sign>",
// "<surname> & <surname> <activity>" or "<invented brand> <activity>"; Dutch in Flanders and the
// Netherlands, French in Wallonia and France. Each trade's words come with the NACE codes that fit them.

type Language = 'nl' | 'fr';
/** Where names come from: Flemish and Dutch names differ, as do Walloon and French ones. */
type Area = 'flemish' | 'walloon' | 'dutch' | 'french';

interface Words {
  /** Goes before a surname or sign: "Bakkerij", "Transports". */
  before: readonly string[];
  /** Goes after a surname or brand: "Logistics", "Conseil". */
  after: readonly string[];
}

interface Trade {
  nl: Words;
  fr: Words;
  /** NACE-BEL codes: the usual main activity first, then activities such firms often add. */
  nace: readonly string[];
  /** How many of the first codes can be a company's main activity (a hotel's is always 55100). */
  mains: 1 | 2;
}

interface Sector {
  trades: readonly Trade[];
  weight: number;
  /** Gross margin / revenue. */
  grossMargin: readonly [number, number];
  /** Inventory / current assets. */
  inventory: readonly [number, number];
  /** Total assets per euro of revenue. */
  assets: readonly [number, number];
  /** Current assets / total assets. */
  currentAssets: readonly [number, number];
  /** Men among the staff. */
  maleShare: readonly [number, number];
  /** Belgian joint committees: the first always, a second sometimes. */
  beCommittees: readonly string[];
  /** French collective agreements (IDCC): one is picked. */
  frIdcc: readonly string[];
}

/** "a, b,\n c d" → ['a', 'b', 'c d']: keeps word lists compact (prettier leaves template strings alone). */
function list(text: string): readonly string[] {
  return text
    .split(',')
    .map((word) => word.replace(/\s+/g, ' ').trim())
    .filter((word) => word.length > 0);
}

/** A trade from compact word lists: `before | after` per language. */
function trade(nl: string, fr: string, nace: string, mains: 1 | 2 = 2): Trade {
  const words = (text: string): Words => {
    const [before = '', after = ''] = text.split('|');
    return { before: list(before), after: list(after) };
  };
  return { nl: words(nl), fr: words(fr), nace: list(nace), mains };
}

const SECTORS: readonly Sector[] = [
  {
    trades: [
      trade(
        'Transport, Transportbedrijf | Transport, Logistics, Logistiek',
        'Transports, Logistique | Transports, Logistique',
        '49410, 52290, 52100',
      ),
      trade('Koeriersdienst | Koeriers, Express', 'Coursiers | Express, Courses', '53200, 49410'),
      trade('Taxi, Autocars | Taxi, Reizen', 'Taxis, Autocars | Taxis, Voyages', '49320, 49390'),
    ],
    weight: 10,
    grossMargin: [0.3, 0.45],
    inventory: [0, 0.05],
    assets: [0.45, 0.8],
    currentAssets: [0.35, 0.7],
    maleShare: [0.75, 0.95],
    beCommittees: ['140.03', '200'],
    frIdcc: ['0016'],
  },
  {
    trades: [
      trade(
        'Bouwbedrijf, Aannemingen, Bouwonderneming | Bouw, Construct, Bouwwerken',
        'Construction, Entreprise, Constructions | Construction, Bâtiment, Constructions',
        '41201, 41202, 43999',
      ),
      trade(
        'Dakwerken, Renovatie | Renovatie, Dakwerken',
        'Toitures, Rénovation | Rénovation, Toitures',
        '43910, 43999, 43390',
      ),
      trade(
        'Elektriciteitswerken, Elektro | Elektro, Elektrotechniek',
        'Électricité | Électricité, Électro',
        '43211, 43222',
        1,
      ),
      trade(
        'Sanitair, Installatiebedrijf | Sanitair, Verwarming, Installaties',
        'Plomberie, Chauffage | Chauffage, Sanitaire, Installations',
        '43221, 43222',
      ),
      trade(
        'Schrijnwerkerij, Timmerwerken | Schrijnwerk, Interieur',
        'Menuiserie | Menuiserie, Intérieur',
        '43320, 16230',
      ),
    ],
    weight: 15,
    grossMargin: [0.3, 0.45],
    inventory: [0.05, 0.25],
    assets: [0.5, 0.9],
    currentAssets: [0.45, 0.8],
    maleShare: [0.85, 0.98],
    beCommittees: ['124', '200'],
    frIdcc: ['1597', '1596', '2609'],
  },
  {
    trades: [
      trade('Bakkerij | Bakkerij, Brood', 'Boulangerie, Pâtisserie | Boulangerie, Pains', '10712, 47241'),
      trade('Brouwerij | Bieren, Brouwers', 'Brasserie | Bières, Brasseurs', '11050, 47250', 1),
      trade('Slagerij, Beenhouwerij | Vleeswaren', 'Boucherie | Salaisons, Charcuterie', '47220, 10130'),
      trade(
        'Kaasmakerij, Zuivelhoeve | Zuivel, Kaas',
        'Fromagerie, Laiterie | Fromages, Laiterie',
        '10510, 47290',
      ),
      trade(
        'Chocolaterie | Chocolade, Pralines',
        'Chocolaterie, Confiserie | Chocolats, Pralines',
        '10821, 10720',
        1,
      ),
      trade(
        'Voeding | Food, Voeding, Foods',
        'Traiteur | Alimentation, Gourmet, Traiteur',
        '10890, 10850, 56210',
      ),
    ],
    weight: 9,
    grossMargin: [0.35, 0.55],
    inventory: [0.15, 0.35],
    assets: [0.5, 0.9],
    currentAssets: [0.35, 0.7],
    maleShare: [0.4, 0.65],
    beCommittees: ['118', '220'],
    frIdcc: ['0843', '1747'],
  },
  {
    trades: [
      trade(
        'Restaurant, Eethuis, Brasserie | Restaurant, Eethuis',
        'Restaurant, Bistrot, Brasserie | Restaurant, Bistrot',
        '56101, 56102, 56301',
      ),
      trade('Eetcafé, Café | Café', 'Café, Taverne | Café, Taverne', '56301, 56101'),
      trade('Hotel | Hotel, Hotels', 'Hôtel, Auberge | Hôtel, Hôtellerie', '55100, 56101', 1),
      trade(
        'Catering | Catering, Events, Traiteur',
        'Traiteur | Catering, Réceptions, Événements',
        '56210, 56290',
      ),
    ],
    weight: 10,
    grossMargin: [0.55, 0.7],
    inventory: [0.03, 0.1],
    assets: [0.6, 1.2],
    currentAssets: [0.15, 0.4],
    maleShare: [0.4, 0.6],
    beCommittees: ['302'],
    frIdcc: ['1979'],
  },
  {
    trades: [
      trade(
        'Metaalbouw, Staalbouw | Metaal, Staalbouw, Metaalconstructie',
        'Chaudronnerie, Métallerie | Métal, Acier, Chaudronnerie',
        '25110, 25620',
      ),
      trade(
        'Machinebouw | Machines, Engineering, Techniek',
        'Mécanique, Ateliers | Mécanique, Industrie, Engineering',
        '28990, 33120, 25620',
      ),
      trade('Draaierij | Precisie, Precision', 'Usinage, Décolletage | Usinage, Précision', '25620, 25730'),
    ],
    weight: 9,
    grossMargin: [0.35, 0.5],
    inventory: [0.2, 0.4],
    assets: [0.6, 1.0],
    currentAssets: [0.4, 0.7],
    maleShare: [0.8, 0.95],
    beCommittees: ['111', '209'],
    frIdcc: ['3248'],
  },
  {
    trades: [
      trade(
        'Softwarehuis | Software, IT Solutions, Digital',
        'Informatique | Informatique, Digital, Software, Solutions',
        '62010, 62020, 58290',
      ),
      trade(
        'ICT | Consult, ICT, IT Services, Systems',
        'Services informatiques | Consulting, Systèmes, Data',
        '62020, 62090, 62030, 63110',
      ),
      trade(
        'Adviesbureau | Advies, Consultancy, Management',
        'Cabinet, Conseil | Conseil, Consulting, Management',
        '70220, 70210, 78100',
      ),
      trade(
        'Reclamebureau | Media, Marketing, Communicatie',
        'Agence | Communication, Marketing, Média',
        '73110, 70210, 74100',
      ),
    ],
    weight: 14,
    grossMargin: [0.6, 0.85],
    inventory: [0, 0.02],
    assets: [0.35, 0.7],
    currentAssets: [0.55, 0.85],
    maleShare: [0.6, 0.85],
    beCommittees: ['200'],
    frIdcc: ['1486'],
  },
  {
    trades: [
      trade(
        'Groothandel, Handelshuis | Trading, Distributie, Handel, Import',
        'Négoce, Comptoir, Distribution | Distribution, Négoce, Import, Commerce',
        '46900, 46190, 46390',
      ),
      trade(
        'Bouwmaterialen, Houthandel | Bouwmaterialen, Hout',
        'Matériaux, Bois | Matériaux, Bois',
        '46730, 47520',
      ),
      trade(
        'Technische Handel | Techniek, Supplies, Industrie',
        'Équipements | Fournitures, Équipements',
        '46690, 46740',
      ),
      trade(
        'Groothandel | Foodservice, Food Import, Versmarkt',
        'Grossiste | Primeurs, Alimentaire',
        '46390, 46310, 46380',
      ),
      trade('Modehuis | Fashion, Textiel, Mode', 'Maison | Mode, Textile, Confection', '46420, 46410, 47710'),
      trade(
        'Computerhandel | Computers, Electronics',
        'Comptoir | Électronique, Micro',
        '46510, 46520, 47410',
      ),
    ],
    weight: 15,
    grossMargin: [0.12, 0.3],
    inventory: [0.3, 0.5],
    assets: [0.3, 0.6],
    currentAssets: [0.55, 0.85],
    maleShare: [0.55, 0.8],
    beCommittees: ['226', '200', '201'],
    frIdcc: ['2216', '0573'],
  },
  {
    trades: [
      trade(
        'Schoonmaakbedrijf, Poetsdienst | Cleaning, Schoonmaak, Facility, Services',
        'Nettoyage, Propreté | Services, Nettoyage, Propreté, Facility',
        '81210, 81220, 81100',
      ),
      trade(
        'Tuinaanleg, Hoveniersbedrijf | Groen, Tuinen',
        'Jardins, Paysages | Jardins, Espaces Verts',
        '81300, 81210',
      ),
    ],
    weight: 6,
    grossMargin: [0.75, 0.9],
    inventory: [0, 0.03],
    assets: [0.25, 0.5],
    currentAssets: [0.5, 0.85],
    maleShare: [0.2, 0.5],
    beCommittees: ['121'],
    frIdcc: ['3043'],
  },
  {
    trades: [
      trade(
        'Immo, Vastgoed | Vastgoed, Immo, Patrimonium',
        'Immobilière, Immo, Patrimoine | Immobilier, Immo, Patrimoine',
        '68201, 68203, 68100',
      ),
      trade(
        'Projectontwikkeling | Projects, Development, Projectontwikkeling',
        'Promotion | Promotion, Développement, Projets',
        '41101, 68100, 41201',
      ),
      trade(
        'Makelaardij, Immokantoor | Makelaars, Vastgoedadvies',
        'Agence | Immobilier, Transactions',
        '68311, 68321',
      ),
    ],
    weight: 12,
    grossMargin: [0.65, 0.9],
    inventory: [0, 0.05],
    assets: [3, 8],
    currentAssets: [0.05, 0.3],
    maleShare: [0.4, 0.65],
    beCommittees: ['200', '323'],
    frIdcc: ['1527'],
  },
];

const SECTOR_WEIGHTS = SECTORS.map((s) => s.weight);

/** Holdings: head-office activity (70100) first; they hold participations and often real estate. */
const HOLDING: Sector = {
  trades: [
    trade(
      'Groep, Beheer, Holding | Holding, Beheer, Invest, Groep, Participaties',
      'Groupe, Financière, Holding | Holding, Participations, Invest, Finance',
      '70100, 64200, 68201, 70220, 68100',
      1,
    ),
  ],
  weight: 0,
  grossMargin: [0.7, 0.95],
  inventory: [0, 0.01],
  assets: [4, 15],
  currentAssets: [0.03, 0.2],
  maleShare: [0.4, 0.7],
  beCommittees: ['200'],
  frIdcc: ['1527'],
};

/** Holdings are 7% of the companies; each controls a handful of subsidiaries. */
const HOLDING_SHARE = 0.07;

const SURNAMES: Record<Area, readonly string[]> = {
  flemish: list(`
    Peeters, Janssens, Maes, Jacobs, Mertens, Willems, Claes, Goossens, Wouters, De Smet, Van Damme,
    Vermeulen, Verstraete, De Backer, Hermans, Van den Broeck, Dewulf, Lemmens, Vandenberghe, Coppens,
    Declercq, Martens, Aerts, Michiels, Smets, Pauwels, Cools, Dhondt, Verhaegen, Van Acker, Segers, Baert,
    Desmedt, Verbeke, Lambrechts, Claeys, Bogaert, Van de Velde, Geerts, Stevens`),
  walloon: list(`
    Dubois, Lambert, Dupont, Martin, Leclercq, Lejeune, Renard, Denis, Simon, Laurent, Dumont, Lemaire,
    Gilson, Collard, François, Mathieu, Henrard, Piette, Delvaux, Lecomte, Bodart, Marchal, Thiry, Hubert,
    Gérard, Noël, Lurquin, Dethier, Jacquet, Massart, Hardy, Goffin, Pirard, Warnier, Lhoest, Fontaine,
    Charlier, Servais, Wauters, Remacle`),
  dutch: list(`
    De Jong, Jansen, De Vries, Van den Berg, Bakker, Visser, Smit, Meijer, De Boer, Mulder, De Groot, Bos,
    Vos, Hendriks, Van Leeuwen, Dekker, Brouwer, De Wit, Dijkstra, De Graaf, Van der Meer, Kok, Van Dijk,
    Postma, Kuipers, Van Vliet, Verhoeven, Schouten, Peters, Willemsen, Van der Linden, Hoekstra, Prins,
    Huisman, Koster, Timmermans, Groen, Van Beek, Veenstra, Ter Horst`),
  french: list(`
    Martin, Bernard, Dubois, Thomas, Robert, Richard, Petit, Durand, Leroy, Moreau, Simon, Laurent,
    Lefebvre, Michel, Garcia, David, Bertrand, Roux, Vincent, Fournier, Morel, Girard, André, Mercier,
    Dupont, Lambert, Bonnet, Legrand, Garnier, Faure, Rousseau, Blanc, Guérin, Muller, Henry, Roussel,
    Perrin, Morin, Chevalier, Gauthier`),
};

/** As a person's name: the Dutch write "Jan de Jong" but "De Jong Transport"; Belgians keep "Van Damme". */
const PERSON_SURNAMES: Record<Area, readonly string[]> = {
  ...SURNAMES,
  dutch: SURNAMES.dutch.map((name) =>
    name.replace(/^((?:Van|De|Den|Der|Ter) )+/, (particles) => particles.toLowerCase()),
  ),
};

const FIRST_NAMES: Record<Area, readonly string[]> = {
  flemish: list(`
    Jan, Pieter, Tom, Koen, Bart, Wim, Kristof, Jeroen, Stijn, Dirk, Luc, Geert, Filip, Joris, Wouter,
    Thomas, Ruben, Pieterjan, An, Els, Katrien, Sofie, Lies, Inge, Veerle, Sarah, Hanne, Lotte, Griet, Leen,
    Evelien, Marijke, Nathalie, Ann`),
  walloon: list(`
    Jean, Pierre, Philippe, Michel, Alain, Benoît, Christophe, Olivier, Vincent, Laurent, Xavier, Damien,
    Grégory, Jérôme, Marie, Anne, Isabelle, Nathalie, Catherine, Sophie, Caroline, Céline, Julie, Aurélie,
    Valérie, Stéphanie, Martine, Françoise`),
  dutch: list(`
    Jan, Pieter, Kees, Henk, Sander, Daan, Bas, Thijs, Joost, Ruud, Jeroen, Maarten, Erik, Wouter, Marieke,
    Anouk, Sanne, Femke, Esther, Ingrid, Linda, Lisa, Eva, Mirjam, Ellen, Petra, Annemiek, Lotte`),
  french: list(`
    Jean, Pierre, Nicolas, Thomas, Julien, François, Sébastien, Stéphane, Frédéric, Éric, Philippe, Laurent,
    Antoine, Guillaume, Marie, Nathalie, Isabelle, Sylvie, Céline, Camille, Émilie, Claire, Sandrine,
    Valérie, Caroline, Hélène, Aurélie, Sophie`),
};

const GERMAN_SURNAMES = list(
  'Müller, Schmidt, Schneider, Fischer, Weber, Meyer, Wagner, Becker, Schulz, Hoffmann, Koch, Richter',
);

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
  'Al, Be, Cor, Da, El, Fi, Gra, Hex, In, Jo, Ka, Lu, Mar, No, Or, Pra, Qua, Ro, Sa, Tri, Ve, Zen, Ar, Vi',
);
const BRAND_TAILS = list(
  'tix, vara, nova, ris, lio, sys, tera, mex, ando, vio, lux, gon, texa, dis, rium, tec',
);

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

const SIZES = ['micro', 'small', 'medium', 'large'] as const;
type Size = (typeof SIZES)[number];

/** Job titles: the head of the company first (it depends on the legal form), then the others. */
const JOB_TITLES = {
  be_nl: list(`
    CFO, Financieel directeur, Commercieel directeur, HR manager, Operationeel directeur,
    Aankoopverantwoordelijke, IT manager, Boekhouder, Office manager, Verkoopverantwoordelijke, Bestuurder`),
  nl: list(`
    CFO, Financieel directeur, Commercieel directeur, HR manager, Operationeel manager, Inkoper, IT manager,
    Controller, Office manager, Salesmanager`),
  fr: list(`
    Directeur financier, CFO, Directeur commercial, Responsable RH, HR manager, Directeur des opérations,
    Responsable achats, Responsable informatique, Comptable, Office manager, Administrateur`),
};

// ---------------------------------------------------------------------------------------------------------
// Identities: everything another record may need to know about a company (a holder's number and name),
// cheap to compute and independent of its periods, shareholders and contacts.

interface Identity {
  index: number;
  country: Country;
  companyNumber: string;
  name: string;
  /** The name without its legal form: the website's domain. */
  stem: string;
  place: string;
  language: Language;
  area: Area;
  sector: Sector;
  trade: Trade;
  size: Size;
  legalForm: string;
  holding: boolean;
  /** Index in SURNAMES[area] of the founders' family: the surname in the name when there is one. */
  founders: number;
  periodCount: number;
  /** A July–June fiscal year (about 15% of companies) instead of the calendar year. */
  midYear: boolean;
  lastYear: number;
  foundedOn: string;
}

/** How far back (in companies of one country) a company finds its holding or its look-alike family. */
const HOLDER_WINDOW = 60;
const FAMILY_WINDOW = 20;
/** A power of two larger than the widest look-back (HOLDER_WINDOW companies of every country). */
const IDENTITY_CACHE = 1024;

/** Identities by index, with a small cache: holders and family members are always recent companies. */
class Identities {
  readonly seedHash: number;
  /** Added to serials before they are scrambled, so each seed has its own company numbers. */
  readonly serialOffset: number;
  private readonly cache: (Identity | undefined)[] = new Array<Identity | undefined>(IDENTITY_CACHE);

  constructor(seed: number) {
    this.seedHash = fmix32((seed >>> 0) ^ fmix32(floor(seed / 2 ** 32)));
    this.serialOffset = this.seedHash % 1_000_000;
  }

  get(index: number): Identity {
    const slot = index & (IDENTITY_CACHE - 1);
    const cached = this.cache[slot];
    if (cached?.index === index) return cached;
    const identity = makeIdentity(this, index);
    this.cache[slot] = identity;
    return identity;
  }

  /** Decided apart from the identity stream, so finding a holder does not build identities. */
  isHolding(index: number): boolean {
    return streamSeed(this.seedHash, index, Stream.Holding) / 4294967296 < HOLDING_SHARE;
  }

  rng(index: number, stream: Stream): Rng {
    return mulberry32(streamSeed(this.seedHash, index, stream));
  }
}

function makeIdentity(identities: Identities, index: number): Identity {
  const rng = identities.rng(index, Stream.Identity);
  const country = COUNTRIES[index % COUNTRIES.length]!;
  const holding = identities.isHolding(index);

  // Look-alike families: some companies share the trade, place and size band of a recent company of the
  // same country, as happens in every town (three bakeries of similar size in Aalst).
  let model: Identity | null = null;
  if (!holding && chance(rng, 0.12)) {
    const source = index - COUNTRIES.length * intBetween(rng, 1, FAMILY_WINDOW);
    if (source >= 0 && !identities.isHolding(source)) model = identities.get(source);
  }

  let place: string;
  let language: Language;
  let area: Area;
  let sector: Sector;
  let size: Size;
  let companyTrade: Trade;
  if (model) {
    ({ place, language, area, sector, size, trade: companyTrade } = model);
  } else {
    ({ place, language, area } = pickPlace(rng, country));
    sector = holding ? HOLDING : weighted(rng, SECTORS, SECTOR_WEIGHTS);
    companyTrade = pick(rng, sector.trades);
    size = weighted(rng, SIZES, holding ? [70, 25, 5, 0] : [45, 30, 17, 8]);
  }

  const periodCount = intBetween(rng, 1, 10);
  const midYear = chance(rng, 0.15);
  const lastYear = midYear
    ? weighted(rng, [2025, 2024, 2023], [6, 3, 1])
    : weighted(rng, [2025, 2024, 2023, 2022], [55, 30, 10, 5]);
  const firstYear = lastYear - periodCount + 1;
  const firstStart = midYear ? toDayNumber(firstYear - 1, 7, 1) : toDayNumber(firstYear, 1, 1);
  // Young companies file from their first year on; older ones have filings before the data's window.
  const founded =
    periodCount < 10 && chance(rng, 0.4)
      ? firstStart - intBetween(rng, 1, 360)
      : firstStart - floor(365.25 * (1 + 44 * rng() ** 2)) - intBetween(rng, 0, 364);

  const legalForm = pickLegalForm(rng, country, language, size, holding);
  const founders = floor(rng() * SURNAMES[area].length);
  const stem = nameStem(rng, language, area, companyTrade, founders);
  const serial = floor(index / COUNTRIES.length);
  const companyNumber = makeCompanyNumber(rng, country, identities.serialOffset, serial, founded >= DAY_2023);

  return {
    index,
    country,
    companyNumber,
    name: `${stem} ${legalForm}`,
    stem,
    place,
    language,
    area,
    sector,
    trade: companyTrade,
    size,
    legalForm,
    holding,
    founders,
    periodCount,
    midYear,
    lastYear,
    foundedOn: fromDayNumber(founded),
  };
}

function pickPlace(rng: Rng, country: Country): { place: string; language: Language; area: Area } {
  switch (country) {
    case 'BE': {
      const region = weighted(rng, ['flanders', 'wallonia', 'brussels'] as const, [55, 30, 15]);
      if (region === 'brussels') {
        // Brussels is bilingual: its companies register in either language.
        return chance(rng, 0.7)
          ? { place: 'Bruxelles', language: 'fr', area: 'walloon' }
          : { place: 'Brussel', language: 'nl', area: 'flemish' };
      }
      const place = pickFront(rng, TOWNS[region]);
      return region === 'flanders'
        ? { place, language: 'nl', area: 'flemish' }
        : { place, language: 'fr', area: 'walloon' };
    }
    case 'NL':
      return { place: pickFront(rng, TOWNS.netherlands), language: 'nl', area: 'dutch' };
    case 'FR':
      return { place: pickFront(rng, TOWNS.france), language: 'fr', area: 'french' };
  }
}

/** Legal forms by size: small firms pick the cheap private forms, large ones the public company. */
function pickLegalForm(rng: Rng, country: Country, language: Language, size: Size, holding: boolean): string {
  const big = size === 'large' || (size === 'medium' && chance(rng, 0.4)) || (holding && chance(rng, 0.35));
  switch (country) {
    case 'BE':
      if (language === 'nl') return big ? 'NV' : weighted(rng, ['BV', 'CommV'], [12, 1]);
      return big ? 'SA' : 'SRL';
    case 'NL':
      if (big) return size === 'large' && chance(rng, 0.3) ? 'N.V.' : 'B.V.';
      return size === 'micro' && !holding && chance(rng, 0.2) ? 'V.O.F.' : 'B.V.';
    case 'FR':
      if (big) return weighted(rng, ['SA', 'SAS'], [1, 2]);
      if (size === 'micro') return weighted(rng, ['SARL', 'EURL', 'SASU', 'SAS'], [3, 2, 2, 1]);
      return weighted(rng, ['SAS', 'SARL'], [3, 2]);
  }
}

function nameStem(rng: Rng, language: Language, area: Area, companyTrade: Trade, founders: number): string {
  const words = companyTrade[language];
  const surname = SURNAMES[area][founders]!;
  switch (
    weighted(
      rng,
      ['surname-after', 'before-surname', 'before-sign', 'duo', 'brand'] as const,
      [8, 6, 3, 2, 4],
    )
  ) {
    case 'surname-after':
      return `${surname} ${pick(rng, words.after)}`;
    case 'before-surname':
      return `${pick(rng, words.before)} ${surname}`;
    case 'before-sign':
      return `${pick(rng, words.before)} ${pick(rng, SIGNS[language])}`;
    case 'duo':
      return `${surname} & ${pick(rng, SURNAMES[area])} ${pick(rng, words.after)}`;
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

/** Coprime with 10⁶: multiplying by it permutes the serials, so numbers look random but never repeat. */
const SERIAL_MULTIPLIER = 738_301;

/** The scrambled serial sits at a fixed place in every number, which makes numbers unique per country. */
function makeCompanyNumber(
  rng: Rng,
  country: Country,
  offset: number,
  serial: number,
  young: boolean,
): string {
  const body = pad((serial * SERIAL_MULTIPLIER + offset) % 1_000_000, 6);
  switch (country) {
    case 'BE': {
      // Numbers handed out since 2023 start with 1, older ones with 0. 01… is left for companies outside
      // the data (see outsideHolder).
      const firstEight = `${young ? '10' : `0${intBetween(rng, 2, 9)}`}${body}`;
      return firstEight + belgianCheckDigits(firstEight);
    }
    case 'NL':
      return `${intBetween(rng, 1, 9)}${body}${intBetween(rng, 0, 9)}`;
    case 'FR': {
      const head = `${intBetween(rng, 3, 9)}${body}${intBetween(rng, 0, 9)}`;
      return head + luhnCheckDigit(head);
    }
  }
}

function vatNumber(rng: Rng, id: Identity): string {
  switch (id.country) {
    case 'BE':
      return `BE${id.companyNumber}`;
    case 'NL':
      return `NL${rsin(rng, floor(id.index / COUNTRIES.length))}B01`;
    case 'FR':
      return `FR${pad(frenchVatKey(id.companyNumber), 2)}${id.companyNumber}`;
  }
}

/**
 * A Dutch RSIN (the VAT id is RSIN + B01 for a B.V.; unrelated to the KvK number): 9 digits passing the
 * eleven test, Σ dᵢ·(9−i) for the first eight ≡ d₉ (mod 11). The serial keeps it unique.
 */
function rsin(rng: Rng, serial: number): string {
  const eight = `${intBetween(rng, 1, 9)}${pad(serial, 6)}`;
  for (let last = intBetween(rng, 0, 9), tries = 0; tries < 10; last = (last + 1) % 10, tries++) {
    const digits = `${eight}${last}`;
    let sum = 0;
    for (let i = 0; i < 8; i++) sum += Number(digits[i]) * (9 - i);
    const check = sum % 11;
    // A remainder of 10 has no check digit: the next eighth digit shifts the sum by 2.
    if (check < 10) return `${digits}${check}`;
  }
  throw new Error('unreachable: two consecutive eighth digits never both leave remainder 10');
}

// ---------------------------------------------------------------------------------------------------------
// Companies

function generateCompany(identities: Identities, index: number): DemoRecord {
  const id = identities.get(index);
  const rng = identities.rng(index, Stream.Details);
  const vat = vatNumber(rng, id);
  // Holdings are the companies most often without a website.
  const website = chance(rng, id.holding ? 0.5 : 0.1)
    ? null
    : `https://www.${slug(id.stem)}.${id.country.toLowerCase()}`;
  const activities = pickActivities(rng, id.trade);
  const financials = generatePeriods(rng, id);
  const people = new People(rng, id);
  const shareholders = generateShareholders(rng, identities, id, people);
  const contacts = generateContacts(rng, id, people);
  return {
    country: id.country,
    companyNumber: id.companyNumber,
    name: id.name,
    place: id.place,
    vatNumber: vat,
    website,
    legalForm: id.legalForm,
    foundedOn: id.foundedOn,
    activities,
    financials,
    shareholders,
    contacts,
  };
}

/** 1–3 codes of the company's trade: usually its typical main activity, then one or two related ones. */
function pickActivities(rng: Rng, companyTrade: Trade): string[] {
  const codes = companyTrade.nace;
  const main = companyTrade.mains === 1 || chance(rng, 0.8) ? codes[0]! : codes[1]!;
  const activities = [main];
  const wanted = min(codes.length, weighted(rng, [1, 2, 3], [5, 3, 2]));
  for (const code of codes) {
    if (activities.length >= wanted) break;
    if (code !== main && chance(rng, 0.7)) activities.push(code);
  }
  return activities;
}

// ---------------------------------------------------------------------------------------------------------
// People: shareholders who are persons and contacts, with names of the company's language area.

interface Person {
  firstName: string;
  lastName: string;
}

class People {
  private readonly used = new Set<string>();

  constructor(
    private readonly rng: Rng,
    private readonly id: Identity,
    /** People already named in the company. */
    named: readonly Person[] = [],
  ) {
    for (const person of named) this.used.add(fullName(person));
  }

  /** Someone not yet named in this company; of the founders' family when `family` (the firm bears its name). */
  next(family: boolean): Person {
    const { rng, id } = this;
    const surnames = PERSON_SURNAMES[id.area];
    let person: Person = { firstName: '', lastName: '' };
    for (let attempt = 0; attempt < 8; attempt++) {
      person = {
        firstName: pick(rng, FIRST_NAMES[id.area]),
        lastName: family && attempt < 4 ? surnames[id.founders]! : pick(rng, surnames),
      };
      if (!this.used.has(fullName(person))) break;
    }
    this.used.add(fullName(person));
    return person;
  }
}

const fullName = (p: Person): string => `${p.firstName} ${p.lastName}`;

// ---------------------------------------------------------------------------------------------------------
// Shareholders (§6.2, §6.4). Shares are counted in units of 0.0001; a company's units add up to at most
// 10,000. A holder company always has a smaller index, so ownership is acyclic and prefixes consistent.

const WHOLE = 10_000;

interface Stake {
  holder: Omit<DemoShareholder, 'percentage'>;
  units: number;
}

function generateShareholders(
  rng: Rng,
  identities: Identities,
  id: Identity,
  people: People,
): DemoShareholder[] {
  const stakes: Stake[] = [];
  const add = (holder: Omit<DemoShareholder, 'percentage'>, units: number): void => {
    if (units > 0) stakes.push({ holder, units });
  };
  const company = (h: Identity): Omit<DemoShareholder, 'percentage'> => ({
    country: h.country,
    companyNumber: h.companyNumber,
    name: h.name,
  });
  /** Persons share `units` (the founders' family first); 0 persons leaves the rest unknown. */
  const persons = (units: number, count: number): void => {
    for (const part of split(rng, units, count))
      add({ name: fullName(people.next(stakes.length === 0 || chance(rng, 0.5))) }, part);
  };
  const majority = (): number => (chance(rng, 0.45) ? WHOLE : intBetween(rng, 5_001, 9_999));

  const r = rng();
  if (id.holding) {
    // Holdings belong to families, sometimes to a bigger holding (a chain) or a Luxembourg vehicle.
    if (r < 0.15) {
      const parent = findHolding(rng, identities, id.index);
      if (parent) {
        const units = majority();
        add(company(parent), units);
        persons(WHOLE - units, intBetween(rng, 0, 1));
      } else persons(WHOLE, intBetween(rng, 1, 3));
    } else if (r < 0.2) {
      const units = majority();
      add(foreignHolder(rng, 'LU'), units);
      persons(WHOLE - units, 1);
    } else if (r < 0.9) {
      persons(WHOLE, intBetween(rng, 1, 3));
    }
  } else if (r < 0.22) {
    // A subsidiary: controlled (> 50 %) by a holding, the rest with its managers or not known.
    const parent = findHolding(rng, identities, id.index);
    const units = majority();
    if (parent) add(company(parent), units);
    else persons(units, 1);
    persons(WHOLE - units, chance(rng, 0.6) ? intBetween(rng, 1, 2) : 0);
  } else if (r < 0.26) {
    // A joint venture: two holdings with exactly 50 % each, so neither controls it.
    const first = findHolding(rng, identities, id.index);
    const second = findHolding(rng, identities, id.index);
    if (first) add(company(first), WHOLE / 2);
    if (second && second !== first) add(company(second), WHOLE / 2);
    else persons(WHOLE / 2, 1);
  } else if (r < 0.32) {
    // A minority stake of a holding; the founders keep the rest.
    const holder = findHolding(rng, identities, id.index);
    const units = intBetween(rng, 500, 4_999);
    if (holder) add(company(holder), units);
    persons(WHOLE - units, intBetween(rng, 1, 3));
  } else if (r < 0.34) {
    // Owned from abroad: a German or Luxembourg company, never one of ours.
    const units = majority();
    add(foreignHolder(rng, chance(rng, 0.5) ? 'DE' : 'LU'), units);
    persons(WHOLE - units, intBetween(rng, 0, 1));
  } else if (r < 0.343) {
    // A Belgian holder that is not in the data (contract §11.1 allows it; answers show it without identifier).
    const units = chance(rng, 0.5) ? majority() : intBetween(rng, 1_000, 4_999);
    add(outsideHolder(rng, id), units);
    persons(WHOLE - units, 1);
  } else if (r < 0.7) {
    persons(WHOLE, weighted(rng, [1, 2, 3, 4], [4, 4, 2, 1]));
  }
  return toShareholders(stakes);
}

/**
 * A holding with a smaller index: most often of the same country and close by (groups stay regional and
 * each holding gets a handful of subsidiaries), sometimes across the border. Null when none is found.
 */
function findHolding(rng: Rng, identities: Identities, index: number): Identity | null {
  const crossBorder = chance(rng, 0.12);
  for (let attempt = 0; attempt < 30; attempt++) {
    const candidate = crossBorder
      ? index - intBetween(rng, 1, COUNTRIES.length * HOLDER_WINDOW)
      : index - COUNTRIES.length * intBetween(rng, 1, HOLDER_WINDOW);
    if (candidate >= 0 && identities.isHolding(candidate)) return identities.get(candidate);
  }
  return null;
}

function foreignHolder(rng: Rng, country: 'DE' | 'LU'): Omit<DemoShareholder, 'percentage'> {
  const brand = `${pick(rng, BRAND_HEADS)}${pick(rng, BRAND_TAILS)}`;
  if (country === 'DE') {
    const name = chance(rng, 0.5) ? `${pick(rng, GERMAN_SURNAMES)} Beteiligungs GmbH` : `${brand} GmbH`;
    return { country, companyNumber: `HRB ${intBetween(rng, 10_000, 250_000)}`, name };
  }
  const name = `${brand} ${pick(rng, ['S.A.', 'S.à r.l.', 'Invest S.A.', 'Participations S.à r.l.'])}`;
  return { country, companyNumber: `B${intBetween(rng, 10_000, 280_000)}`, name };
}

/** A valid Belgian number starting 01, which no company in the data has. */
function outsideHolder(rng: Rng, id: Identity): Omit<DemoShareholder, 'percentage'> {
  const firstEight = `01${pad(intBetween(rng, 0, 999_999), 6)}`;
  const surname = SURNAMES[id.area === 'walloon' || id.area === 'french' ? 'walloon' : 'flemish'];
  const [word, form] = chance(rng, 0.5) ? ['Beheer', 'BV'] : ['Invest', 'NV'];
  return {
    country: 'BE',
    companyNumber: firstEight + belgianCheckDigits(firstEight),
    name: `${pick(rng, surname)} ${word} ${form}`,
  };
}

/** `total` units in `count` positive parts (fewer when there are not enough units). */
function split(rng: Rng, total: number, count: number): number[] {
  const parts: number[] = [];
  let left = total;
  const n = min(count, total);
  for (let k = 0; k < n - 1; k++) {
    const part = clamp(round(left * between(rng, 0.35, 0.7)), 1, left - (n - 1 - k));
    parts.push(part);
    left -= part;
  }
  if (n > 0) parts.push(left);
  return parts;
}

/**
 * Units → 4-decimal percentages. Ten thousand units can still add up to a hair over 1 in floating point
 * (0.7 + 0.2 + 0.1); then the largest holder gives up a unit, until the sum is ≤ 1 both in the record's
 * order and in the answers' order (largest first).
 */
function toShareholders(stakes: Stake[]): DemoShareholder[] {
  const sumOf = (units: number[]): number => units.reduce((total, u) => total + u / WHOLE, 0);
  for (;;) {
    const units = stakes.map((stake) => stake.units);
    const largestFirst = [...units].sort((a, b) => b - a);
    if (sumOf(units) <= 1 && sumOf(largestFirst) <= 1) break;
    stakes.reduce((largest, stake) => (stake.units > largest.units ? stake : largest)).units -= 1;
  }
  return stakes.map(({ holder, units }) => ({ ...holder, percentage: units / WHOLE }));
}

// ---------------------------------------------------------------------------------------------------------
// Contacts: 0–6, the head of the company first. `contactId` = index · 10 + k + 1 is unique across the data
// set and stable when the data grows.

const CONTACTS_PER_COMPANY = 10;

function generateContacts(rng: Rng, id: Identity, people: People): DemoContact[] {
  const count = contactCount(rng, id);
  const others =
    id.language === 'fr' ? JOB_TITLES.fr : id.country === 'NL' ? JOB_TITLES.nl : JOB_TITLES.be_nl;
  const titles = new Set<string>();
  const contacts: DemoContact[] = [];
  for (let k = 0; k < count; k++) {
    let jobTitle = k === 0 ? headTitle(rng, id) : pick(rng, others);
    for (let attempt = 0; titles.has(jobTitle) && attempt < 8; attempt++) jobTitle = pick(rng, others);
    if (titles.has(jobTitle)) continue;
    titles.add(jobTitle);
    // The head is often of the founders' family, in small firms especially.
    const person = people.next(k === 0 && id.size !== 'large' && chance(rng, 0.6));
    contacts.push({ contactId: id.index * CONTACTS_PER_COMPANY + k + 1, ...person, jobTitle });
  }
  return contacts;
}

function contactCount(rng: Rng, id: Identity): number {
  if (id.holding) return intBetween(rng, 0, 2);
  switch (id.size) {
    case 'micro':
      return intBetween(rng, 0, 2);
    case 'small':
      return intBetween(rng, 1, 3);
    case 'medium':
      return intBetween(rng, 2, 5);
    case 'large':
      return intBetween(rng, 3, 6);
  }
}

function headTitle(rng: Rng, id: Identity): string {
  if (id.size === 'large' && chance(rng, 0.6)) return 'CEO';
  switch (id.legalForm) {
    case 'BV':
    case 'CommV':
      return 'Zaakvoerder';
    case 'NV':
      return 'Gedelegeerd bestuurder';
    case 'SRL':
    case 'SARL':
    case 'EURL':
      return 'Gérant';
    case 'SA':
      return id.country === 'BE' ? 'Administrateur délégué' : 'Président-directeur général';
    case 'SAS':
    case 'SASU':
      return chance(rng, 0.7) ? 'Président' : 'Directeur général';
    case 'V.O.F.':
      return 'Vennoot';
    default:
      return chance(rng, 0.6) ? 'Directeur' : 'Algemeen directeur';
  }
}

// ---------------------------------------------------------------------------------------------------------
// The older snapshot: the data as the registries had it on DEMO_SNAPSHOT_DATE. Importing it, then the
// current data, shows how updates arise (§8.2): periods received since are new (published, and compared
// with the period before: margin growth, health drops), and people who were contacts then and are not
// now have left. Everything else is the same, so the state after both imports is the current data's.

/** The older snapshot holds the periods received before this date; its import's as-of date. */
export const DEMO_SNAPSHOT_DATE = '2026-07-01';
/** How many companies had people leave between the snapshots, and how many left (1..7, mostly few). */
const LEAVERS_SHARE = 0.1;
const LEAVER_COUNTS = [1, 2, 3, 4, 5, 6, 7] as const;
const LEAVER_WEIGHTS = [40, 24, 14, 9, 6, 4, 3];
/** Contact ids of people who left: their own range, far above every current id (index · 10 + 1..6). */
const LEFT_CONTACT_IDS = 100_000_000;

function olderSnapshot(identities: Identities, index: number, company: DemoRecord): DemoRecord {
  const rng = identities.rng(index, Stream.History);
  const financials = company.financials.filter((p) => p.dateReceived < DEMO_SNAPSHOT_DATE);
  if (!chance(rng, LEAVERS_SHARE)) return { ...company, financials };
  const id = identities.get(index);
  const people = new People(rng, id, company.contacts);
  const titles =
    id.language === 'fr' ? JOB_TITLES.fr : id.country === 'NL' ? JOB_TITLES.nl : JOB_TITLES.be_nl;
  const left = Array.from({ length: weighted(rng, LEAVER_COUNTS, LEAVER_WEIGHTS) }, (_, k): DemoContact => ({
    contactId: LEFT_CONTACT_IDS + index * CONTACTS_PER_COMPANY + k,
    ...people.next(false),
    jobTitle: pick(rng, titles),
  }));
  return { ...company, financials, contacts: [...company.contacts, ...left] };
}

// ---------------------------------------------------------------------------------------------------------
// Financial periods (§6.1). All amounts are integer cents until they are written, so the identities hold
// to the cent and every amount prints with at most 2 decimals.

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

/** Euros → cents. */
const toCents = (eur: number): number => round(eur * 100);
/** Integer cents / 100 is the closest double to the 2-decimal amount; `+ 0` turns −0 into 0. */
const fromCents = (cents: number): number => cents / 100 + 0;
const ratio4 = (x: number): number => round(x * 10_000) / 10_000;

type Course = 'steady' | 'growing' | 'declining' | 'volatile';

/** Share capital by legal form, in euros (a company keeps its capital over the periods shown). */
function pickCapital(rng: Rng, id: Identity): number {
  const scale = id.holding ? 4 : 1;
  switch (id.legalForm) {
    case 'NV':
    case 'SA':
      return id.country === 'FR'
        ? pick(rng, [37_000, 50_000, 100_000, 250_000, 1_000_000]) * scale
        : pick(rng, [61_500, 62_000, 75_000, 125_000, 250_000, 1_000_000]) * scale;
    case 'BV':
    case 'SRL':
      return pick(rng, [18_550, 18_600, 20_000, 25_000, 50_000, 100_000]) * scale;
    case 'CommV':
      return pick(rng, [6_200, 10_000, 18_600]);
    case 'B.V.':
      return pick(rng, [1, 100, 18_000, 18_151, 45_000, 90_000]) * scale;
    case 'N.V.':
      return pick(rng, [45_000, 100_000, 500_000, 2_500_000]);
    case 'V.O.F.':
      return 0;
    default:
      return pick(rng, [1_000, 5_000, 7_500, 10_000, 37_000, 50_000, 100_000]) * scale;
  }
}

/**
 * Capital not disclosed: Belgian BV/SRL and CommV have had no capital since the 2019 Companies Code (fully
 * in force from 2020), and a Dutch V.O.F. has none at all.
 */
function capitalUndisclosed(id: Identity, startDate: string): boolean {
  if (id.legalForm === 'V.O.F.') return true;
  return (
    (id.legalForm === 'BV' || id.legalForm === 'SRL' || id.legalForm === 'CommV') && startDate >= '2020-01-01'
  );
}

function generatePeriods(rng: Rng, id: Identity): FinancialPeriod[] {
  const { sector, size, country } = id;
  const dates = periodDates(rng, id);

  // Company traits. `quality` drives margins, solvency and liquidity; `course` how it evolves: growers'
  // gross margin rises by 10% a year and more, decliners lose health year after year.
  const course = weighted<Course>(rng, ['steady', 'growing', 'declining', 'volatile'], [67, 10, 15, 8]);
  const quality0 = (rng() + rng()) / 2;
  const drift = {
    steady: between(rng, -0.02, 0.03),
    growing: between(rng, 0, 0.04),
    declining: between(rng, -0.15, -0.05),
    volatile: between(rng, -0.03, 0.03),
  }[course];
  const trend = {
    steady: between(rng, -0.03, 0.06),
    growing: between(rng, 0.1, 0.3),
    declining: between(rng, -0.12, -0.02),
    volatile: between(rng, -0.05, 0.08),
  }[course];
  const noise = course === 'volatile' ? 0.2 : 0.06;
  let workforce = initialWorkforce(rng, size, id.holding);
  const costPerFte = between(rng, 40_000, 66_000);
  const grossMarginRate = between(rng, ...sector.grossMargin);
  const inventoryShare = between(rng, ...sector.inventory);
  const assetIntensity = between(rng, ...sector.assets);
  const currentAssetShare = between(rng, ...sector.currentAssets);
  const depreciationRate = between(rng, 0.03, 0.1);
  const retention = between(rng, 0.2, 0.7);
  const interestRate = between(rng, 0.02, 0.05);
  const maleShare = between(rng, ...sector.maleShare);
  const turnover = between(rng, 0.03, 0.15);
  // Debt structure: short-term financial debt and suppliers are parts of the short-term debt, the rest is
  // tax, social security and other debt; long-term debt is mostly financial.
  const shortFinancial = between(rng, 0, 0.35);
  const shortPayable = between(rng, 0.25, 0.6);
  const longFinancial = between(rng, 0.6, 1);
  const longPayable = chance(rng, 0.3) ? between(rng, 0.2, 0.8) : 0;
  const capitalC = toCents(pickCapital(rng, id));
  // Firms without staff (holdings, one-person firms) are sized by gross margin instead.
  let ownerMargin =
    size === 'micro' || id.holding
      ? exp(between(rng, log(30_000), log(id.holding ? 1_500_000 : 300_000)))
      : 0;
  // Small Belgian companies may file abbreviated accounts, where revenue is optional and usually left out;
  // one that grows beyond 50 staff files full accounts.
  const abbreviating = country === 'BE' && (size === 'micro' || size === 'small') && chance(rng, 0.6);
  const committees = jointCommitteeCodes(rng, country, sector);

  const periods: FinancialPeriod[] = [];
  let previousEquity = 0;
  let previousFinancialDebt = -1;
  let previousEmployees = -1;
  for (let t = 0; t < dates.length; t++) {
    const quality = clamp(quality0 + drift * t + between(rng, -0.04, 0.04), -0.4, 1.05);
    if (t > 0) {
      workforce *= 1 + trend + between(rng, -noise, noise);
      ownerMargin *= 1 + trend + between(rng, -noise, noise);
    }
    const employees = round(workforce);
    // (personnel costs + depreciation) / gross margin: above 1 is an operating loss.
    const costShare = 1.06 - 0.35 * quality + between(rng, -0.03, 0.03);

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
    const revenue = grossMargin / (grossMarginRate * between(rng, 0.97, 1.03));
    // A company in deep trouble sometimes sells below cost: a negative gross margin.
    if (quality < -0.2 && chance(rng, 0.3)) grossMargin = -grossMargin * between(rng, 0.05, 0.3);

    const grossMarginC = toCents(grossMargin);
    const depreciationC = toCents(depreciation);
    const ebitdaC = grossMarginC - toCents(personnelCosts);
    const ebitC = ebitdaC - depreciationC;
    const interestC = t === 0 ? 0 : toCents(fromCents(previousFinancialDebt) * interestRate);
    const beforeTaxC = ebitC - interestC;
    const netProfitC = beforeTaxC > 0 ? round(beforeTaxC * 0.75) : beforeTaxC;

    // Equity: an opening ratio in the first year, then last year's equity plus the retained part of the
    // profit (losses are borne in full).
    let totalAssets = max(10_000, revenue * assetIntensity * between(rng, 0.95, 1.05));
    const equityC =
      t === 0
        ? toCents(totalAssets * clamp(-0.05 + 0.55 * quality + between(rng, -0.12, 0.12), -0.15, 0.85))
        : previousEquity + (netProfitC > 0 ? round(netProfitC * retention) : netProfitC);
    // Debt (suppliers, tax, provisions) is never below 15% of the balance sheet.
    if (equityC > 0) totalAssets = max(totalAssets, fromCents(equityC) / 0.85);
    const totalAssetsC = toCents(totalAssets);
    const debtC = totalAssetsC - equityC;

    const currentAssetsC = min(
      totalAssetsC,
      round(totalAssetsC * currentAssetShare * between(rng, 0.9, 1.1)),
    );
    const inventoryC = round(currentAssetsC * inventoryShare);
    const cashShare = clamp(0.1 + 0.4 * quality + between(rng, -0.1, 0.1), 0.02, 0.8);
    const cashC = round((currentAssetsC - inventoryC) * cashShare);
    const targetCurrentRatio = clamp(0.45 + 1.6 * quality + between(rng, -0.25, 0.25), 0.25, 4);
    const shortTermDebtC = min(debtC, max(1, round(currentAssetsC / targetCurrentRatio)));
    const longTermDebtC = debtC - shortTermDebtC;
    const shortFinancialC = floor(shortTermDebtC * shortFinancial);
    const shortPayableC = floor((shortTermDebtC - shortFinancialC) * shortPayable);
    const longFinancialC = min(longTermDebtC, floor(longTermDebtC * longFinancial));
    const longPayableC = floor((longTermDebtC - longFinancialC) * longPayable);
    // Working capital: current assets minus short-term debt; its requirement leaves out cash, so the two
    // differ by exactly the cash (the treasury).
    const netWorkingCapitalC = currentAssetsC - shortTermDebtC;

    const { startDate, endDate, dateReceived } = dates[t]!;
    const males = employees > 0 ? round(employees * clamp(maleShare + between(rng, -0.03, 0.03), 0, 1)) : 0;
    const maleRatio = employees > 0 ? round((males / employees) * 10_000) : 0;
    // Hires: the growth in staff plus those who replaced leavers.
    const growth = previousEmployees < 0 ? 0 : max(0, employees - previousEmployees);
    const newHires = employees === 0 ? 0 : growth + round(employees * turnover * between(rng, 0.5, 1.5));

    periods.push({
      startDate,
      endDate,
      dateReceived,
      healthIndicator: healthIndicator(
        equityC / totalAssetsC,
        currentAssetsC / shortTermDebtC,
        netProfitC / totalAssetsC,
      ),
      // A company without staff falls under no joint committee or collective agreement.
      jointCommitteeCodes: employees > 0 ? [...committees] : [],
      profitability: {
        revenue: abbreviating && employees <= 50 ? null : fromCents(toCents(revenue)),
        grossMargin: fromCents(grossMarginC),
        ebitda: fromCents(ebitdaC),
        ebit: fromCents(ebitC),
        netProfit: fromCents(netProfitC),
      },
      liquidity: {
        cash: fromCents(cashC),
        cashFlow: fromCents(netProfitC + depreciationC),
        netWorkingCapital: fromCents(netWorkingCapitalC),
        netWorkingCapitalRequirement: fromCents(netWorkingCapitalC - cashC),
        currentRatio: ratio4(currentAssetsC / shortTermDebtC),
        quickRatio: ratio4((currentAssetsC - inventoryC) / shortTermDebtC),
      },
      solvency: {
        totalAssets: fromCents(totalAssetsC),
        equity: fromCents(equityC),
        capital: capitalUndisclosed(id, startDate) ? null : fromCents(capitalC),
        retainedEarnings: fromCents(equityC - capitalC),
        debt: fromCents(debtC),
        longTermDebt: fromCents(longTermDebtC),
        longTermDebtFinancial: fromCents(longFinancialC),
        longTermDebtAccountsPayable: fromCents(longPayableC),
        shortTermDebt: fromCents(shortTermDebtC),
        shortTermDebtFinancial: fromCents(shortFinancialC),
        shortTermDebtAccountsPayable: fromCents(shortPayableC),
      },
      people: {
        employees,
        newHires,
        employeeMaleRatio: employees > 0 ? maleRatio / 10_000 : null,
        employeeFemaleRatio: employees > 0 ? (10_000 - maleRatio) / 10_000 : null,
      },
    });
    previousEquity = equityC;
    previousFinancialDebt = longFinancialC + shortFinancialC;
    previousEmployees = employees;
  }
  // Newest first, the order the API answers in.
  return periods.reverse();
}

function initialWorkforce(rng: Rng, size: Size, holding: boolean): number {
  if (holding) return chance(rng, 0.7) ? 0 : between(rng, 0.6, 5.4);
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

/** The identity's consecutive fiscal years, oldest first, each received 3 to 7 months after it ends. */
function periodDates(rng: Rng, id: Identity): PeriodDates[] {
  const dates: PeriodDates[] = [];
  for (let year = id.lastYear - id.periodCount + 1; year <= id.lastYear; year++) {
    // 92..211 days is within 3 to 7 months after either closing date.
    const received = fromDayNumber(
      toDayNumber(year, id.midYear ? 6 : 12, id.midYear ? 30 : 31) + intBetween(rng, 92, 211),
    );
    dates.push({
      startDate: id.midYear ? `${year - 1}-07-01` : `${year}-01-01`,
      endDate: id.midYear ? `${year}-06-30` : `${year}-12-31`,
      dateReceived: received < LAST_RECEIVED_DATE ? received : LAST_RECEIVED_DATE,
    });
  }
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

/** Belgian numbers starting with 1 are handed out to companies founded since 2023. */
const DAY_2023 = toDayNumber(2023, 1, 1);
