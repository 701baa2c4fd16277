/**
 * One SIRENE unit, from its stock rows to the company fields SIRENE owns (contract §11.3; `registries.md`
 * §2): pure, the unit's row and its head office's row in, an item out. `sirene.ts` streams and joins the
 * files; a re-import maps a unit's raw values here only when its block is read afresh (`sireneMapping`).
 *
 * Privacy: a value the registry withholds (`[ND]`) is never output; a unit whose name is withheld is
 * skipped; of a partially diffusible unit (`P`) only the municipality is kept.
 */
import { countryCode, isoDate, otherNamesOf, textOf } from './fields';
import {
  NAME_WITHHELD,
  type RawMapping,
  type RegistryField,
  type RegistryItem,
  type RegistryUnit,
  type UnitSource,
} from './unit';
import type { SortedRunsOptions } from './sorted-runs';
import { frenchVatKey, parseCompanyNumber } from '../../companies/identifiers';

export const UNIT_COLUMNS = [
  'siren',
  'statutDiffusionUniteLegale',
  'dateCreationUniteLegale',
  'sigleUniteLegale',
  'prenom1UniteLegale',
  'prenomUsuelUniteLegale',
  'dateDebut',
  'etatAdministratifUniteLegale',
  'nomUniteLegale',
  'nomUsageUniteLegale',
  'denominationUniteLegale',
  'denominationUsuelle1UniteLegale',
  'denominationUsuelle2UniteLegale',
  'denominationUsuelle3UniteLegale',
  'categorieJuridiqueUniteLegale',
  'activitePrincipaleUniteLegale',
  'nomenclatureActivitePrincipaleUniteLegale',
  'nicSiegeUniteLegale',
  'activitePrincipaleNAF25UniteLegale',
] as const;

export const ESTABLISHMENT_COLUMNS = [
  'siren',
  'nic',
  'statutDiffusionEtablissement',
  'etablissementSiege',
  'numeroVoieEtablissement',
  'indiceRepetitionEtablissement',
  'typeVoieEtablissement',
  'libelleVoieEtablissement',
  'codePostalEtablissement',
  'libelleCommuneEtablissement',
  'libelleCommuneEtrangerEtablissement',
  'libellePaysEtrangerEtablissement',
  'enseigne1Etablissement',
  'enseigne2Etablissement',
  'enseigne3Etablissement',
  'denominationUsuelleEtablissement',
] as const;

export type UnitRow = Record<(typeof UNIT_COLUMNS)[number], string>;
export type EstablishmentRow = Record<(typeof ESTABLISHMENT_COLUMNS)[number], string>;

export interface SireneOptions {
  /** Ceased units are left out (skipped, with the unit for a stored company to be stopped still, §11.5.6). */
  activeOnly?: boolean;
  /** The establishments file was given: the unit owns its address and place. */
  withEstablishments?: boolean;
  /** Where a file out of `siren` order is copied in order (default: the system's temporary folder), and the runs' size. */
  runs?: SortedRunsOptions;
}

const WITHHELD = '[ND]';
/** A value as output: a withheld one (`[ND]`) is no value. */
const open = (value: string) => (value.trim() === WITHHELD ? null : textOf(value));

/** One unit and, when the establishments were given, its head office (undefined: none found). */
export function sireneItem(
  unit: UnitRow,
  headOffice: EstablishmentRow | undefined,
  source: UnitSource,
  options: SireneOptions = {},
): RegistryItem {
  const siren = unit.siren.trim();
  const companyNumber = parseCompanyNumber('FR', siren);
  if (!companyNumber || siren.length !== 9)
    return { kind: 'rejected', source, reason: `siren ${siren || '""'} is not a valid FR company number` };
  const company = { country: 'FR' as const, companyNumber };

  const name = nameOf(unit);
  if (name === WITHHELD) return { kind: 'skipped', reason: NAME_WITHHELD, source, company };
  if (!name) return { kind: 'rejected', source, reason: `unit ${siren} has no name` };

  let dropped = 0;
  const foundedOn = dateOf(unit.dateCreationUniteLegale);
  if (foundedOn === undefined) dropped++;
  const ceased = unit.etatAdministratifUniteLegale.trim() === 'C';
  const stoppedOn = ceased ? dateOf(unit.dateDebut) : null;
  if (stoppedOn === undefined) dropped++;
  const activity = activityOf(unit);
  if (activity === undefined) dropped++;

  const partial =
    unit.statutDiffusionUniteLegale.trim() === 'P' || headOffice?.statutDiffusionEtablissement.trim() === 'P';
  const address = options.withEstablishments && headOffice ? addressOf(headOffice, partial) : null;
  const owns: RegistryField[] = [
    'name',
    'otherNames',
    'legalForm',
    'foundedOn',
    'stoppedOn',
    'activities',
    'vatNumber',
  ];
  if (options.withEstablishments) owns.push('address', 'place');
  // Without the establishments a unit now partially diffusible still erases the street of an address
  // stored before (§11.5.6): only its municipality, `place`, stays.
  else if (partial) owns.push('address');

  const result: RegistryUnit = {
    source,
    country: 'FR',
    companyNumber: siren,
    owns,
    fields: {
      name,
      otherNames: otherNamesOf(name, [
        open(unit.sigleUniteLegale),
        open(unit.denominationUsuelle1UniteLegale),
        open(unit.denominationUsuelle2UniteLegale),
        open(unit.denominationUsuelle3UniteLegale),
        ...(headOffice && !partial
          ? [
              open(headOffice.enseigne1Etablissement),
              open(headOffice.enseigne2Etablissement),
              open(headOffice.enseigne3Etablissement),
              open(headOffice.denominationUsuelleEtablissement),
            ]
          : []),
      ]),
      legalForm: open(unit.categorieJuridiqueUniteLegale),
      foundedOn: foundedOn ?? null,
      stoppedOn: stoppedOn ?? null,
      activities: activity ? [activity] : [],
      vatNumber: `FR${String(frenchVatKey(siren)).padStart(2, '0')}${siren}`,
      ...(options.withEstablishments
        ? { address, place: address?.place ?? null }
        : partial
          ? { address: null }
          : {}),
    },
    dropped,
  };
  if (ceased && options.activeOnly)
    return { kind: 'skipped', reason: 'ceased', source, company, unit: result };
  return { kind: 'unit', unit: result };
}

/** The corporate name; a natural person's usual (else first) first name and usage (else birth) name; `[ND]` when withheld. */
function nameOf(unit: UnitRow): string | null {
  const denomination = unit.denominationUniteLegale.trim();
  const naturalPerson =
    unit.categorieJuridiqueUniteLegale.trim().startsWith('1') ||
    (!denomination && (unit.nomUniteLegale.trim() !== '' || unit.nomUsageUniteLegale.trim() !== ''));
  if (!naturalPerson) return denomination === WITHHELD ? WITHHELD : textOf(denomination);
  const first = unit.prenomUsuelUniteLegale.trim() || unit.prenom1UniteLegale.trim();
  const last = unit.nomUsageUniteLegale.trim() || unit.nomUniteLegale.trim();
  if (first === WITHHELD || last === WITHHELD) return WITHHELD;
  return textOf([first, last].filter(Boolean).join(' '));
}

/** An ISO date, null when empty or withheld, undefined when unreadable (a dropped field). */
function dateOf(value: string): string | null | undefined {
  const trimmed = value.trim();
  if (!trimmed || trimmed === WITHHELD) return null;
  return isoDate(trimmed) ?? undefined;
}

/**
 * The NACE class of the APE code (`62.01Z` → `6201`): NAF rév. 2, else NAF 2025 (§11.5.7); null when
 * none, undefined when the code is of another nomenclature or unreadable (a dropped field).
 */
function activityOf(unit: UnitRow): string | null | undefined {
  const code = unit.activitePrincipaleUniteLegale.trim();
  const rev2 = unit.nomenclatureActivitePrincipaleUniteLegale.trim() === 'NAFRev2' ? nace(code) : null;
  if (rev2) return rev2[1]! + rev2[2]!;
  const naf25 = nace(unit.activitePrincipaleNAF25UniteLegale);
  if (naf25) return naf25[1]! + naf25[2]!;
  return code && code !== WITHHELD ? undefined : null;
}

/** An APE code's NACE class digits (`62.01Z` → `62`, `01`). */
const nace = (code: string) => /^(\d{2})\.?(\d{2})[A-Z]?$/.exec(code.trim());

/** The head office's address; of a partially diffusible unit, only its municipality. */
function addressOf(office: EstablishmentRow, partial: boolean) {
  const foreignPlace = open(office.libelleCommuneEtrangerEtablissement);
  const place = open(office.libelleCommuneEtablissement) ?? foreignPlace;
  const foreignCountry = open(office.libellePaysEtrangerEtablissement);
  // A seat abroad names its country (ISO 3166); a French one names none (the company's own, §11.1).
  const country = foreignCountry ? countryCode(foreignCountry) : null;
  const abroad = country ? { country } : {};
  if (partial) return { street: null, number: null, box: null, postalCode: null, place, ...abroad };
  const number = [open(office.numeroVoieEtablissement), open(office.indiceRepetitionEtablissement)].join('');
  const street = [open(office.typeVoieEtablissement), open(office.libelleVoieEtablissement)]
    .filter(Boolean)
    .join(' ');
  return {
    street: street || null,
    number: number || null,
    box: null,
    postalCode: open(office.codePostalEtablissement),
    place,
    ...abroad,
  };
}

/**
 * What `sireneItems` maps the raw text of a unit with (`RawUnit`): bump the version whenever
 * `sireneItem` makes something else of the same values.
 */
export const SIRENE_MAPPING_VERSION = 'sirene-map-1';

/** A unit's raw text read back as its row and its head office's row. */
export type SireneRows = (text: string) => [UnitRow, EstablishmentRow | undefined];

/**
 * The mapping of the raw texts a run's units are read as (`rows` reads one back; `format` names how,
 * with whatever the text's meaning depends on): its options and its format are part of its version.
 */
export function sireneMapping(options: SireneOptions, format: string, rows: SireneRows): RawMapping {
  const version =
    `${SIRENE_MAPPING_VERSION}` +
    `${options.withEstablishments ? '+establishments' : ''}${options.activeOnly ? '+active-only' : ''}` +
    `+${format}`;
  return {
    version,
    map: (text, source) => {
      const [unit, office] = rows(text);
      return sireneItem(unit, office, source, options);
    },
  };
}
