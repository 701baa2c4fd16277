/**
 * Registry-shaped files of a given size for the bench: a KBO full extract (nine files) and a SIRENE
 * stock pair, their rows shaped like the samples in test/fixtures/registries (quoting, empties, dates,
 * valid check digits), written as a stream. Proportions follow `registries.md` (KBO per enterprise: 0.86
 * establishments, 1.7 denominations, 1.5 addresses, 0.36 contacts, 18.7 activity rows; SIRENE 1.4
 * establishments per unit); NACE codes and places are skewed like a registry's (a few very common).
 */
import { createWriteStream, type WriteStream } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { once } from 'node:events';
import { join } from 'node:path';
import { belgianCheckDigits, luhnCheckDigit } from '../../lib/companies/identifiers';
import { mulberry32 } from '../fixtures/demo-data/random';

/** The real registries' sizes (`registries.md`): enterprises in a KBO full extract, units in the SIRENE stock. */
export const REAL = { kboEnterprises: 1_938_238, sireneUnits: 29_000_000 } as const;

/** A pick skewed like a registry's codes: the i-th item about 1/(i+1) as likely as the first. */
function skewed<T>(items: readonly T[], rnd: () => number): T {
  return items[Math.min(items.length - 1, Math.floor(Math.exp(rnd() * Math.log(items.length + 1)) - 1))]!;
}

const NACE = Array.from({ length: 400 }, (_, i) => String(10000 + ((i * 21_739) % 89_000)).padStart(5, '0'));
const BE_PLACES = [
  ['1000', 'Brussel', 'Bruxelles'],
  ['2000', 'Antwerpen', 'Anvers'],
  ['9000', 'Gent', 'Gand'],
  ['4000', 'Luik', 'Liège'],
  ['8000', 'Brugge', 'Bruges'],
  ['3000', 'Leuven', 'Louvain'],
  ['5000', 'Namen', 'Namur'],
  ['6000', 'Charleroi', 'Charleroi'],
  ['4700', 'Eupen', 'Eupen'],
  ['1050', 'Elsene', 'Ixelles'],
  ['2800', 'Mechelen', 'Malines'],
  ['7000', 'Bergen', 'Mons'],
] as const;
const FR_PLACES = [
  ['75001', 'PARIS'],
  ['69003', 'LYON'],
  ['13001', 'MARSEILLE'],
  ['31000', 'TOULOUSE'],
  ['33000', 'BORDEAUX'],
  ['59000', 'LILLE'],
  ['44000', 'NANTES'],
  ['20000', 'AJACCIO'],
] as const;

/** Lines written in large chunks, waiting for the disk when it lags. */
class Lines {
  private chunk = '';
  private readonly out: WriteStream;
  rows = 0;
  constructor(path: string, header: string) {
    this.out = createWriteStream(path);
    this.chunk = `${header}\n`;
  }
  async add(line: string): Promise<void> {
    this.chunk += `${line}\n`;
    this.rows++;
    if (this.chunk.length > 1 << 20) {
      if (!this.out.write(this.chunk)) await once(this.out, 'drain');
      this.chunk = '';
    }
  }
  async end(): Promise<void> {
    this.out.end(this.chunk);
    await once(this.out, 'close');
  }
}

const dotted = (ten: string) => `${ten.slice(0, 4)}.${ten.slice(4, 7)}.${ten.slice(7)}`;
const dottedEstablishment = (ten: string) =>
  `${ten[0]}.${ten.slice(1, 4)}.${ten.slice(4, 7)}.${ten.slice(7)}`;
const withCheck = (eight: string) => eight + belgianCheckDigits(eight);
const enterpriseNumber = (i: number) => dotted(withCheck(String(2_000_000 + i * 3).padStart(8, '0')));
const establishmentNumber = (j: number) => dottedEstablishment(withCheck(String(20_000_000 + j * 3)));
const date = (rnd: () => number) =>
  `${String(1 + Math.floor(rnd() * 28)).padStart(2, '0')}-${String(1 + Math.floor(rnd() * 12)).padStart(2, '0')}-${1950 + Math.floor(rnd() * 75)}`;

/** A KBO full extract of `enterprises` enterprises in `dir`; the number of data rows written. */
export async function writeKboFiles(dir: string, enterprises: number): Promise<number> {
  await mkdir(dir, { recursive: true });
  // Seeded by the size: a size always gives the same files.
  const rnd = mulberry32(enterprises);
  const open = (name: string, header: string) => new Lines(join(dir, name), header);
  const meta = open('meta.csv', '"Variable","Value"');
  for (const line of [
    '"SnapshotDate","30-08-2025"',
    '"ExtractType","full"',
    '"ExtractNumber","127"',
    '"Version","1.0.0"',
  ])
    await meta.add(line);
  const code = open('code.csv', '"Category","Code","Language","Description"');
  for (const nace of NACE.slice(0, 50)) await code.add(`"Nace2008","${nace}","NL","Activiteit ${nace}"`);
  const branch = open('branch.csv', '"Id","StartDate","EnterpriseNumber"');
  const enterprise = open(
    'enterprise.csv',
    '"EnterpriseNumber","Status","JuridicalSituation","TypeOfEnterprise","JuridicalForm","JuridicalFormCAC","StartDate"',
  );
  const establishment = open('establishment.csv', '"EstablishmentNumber","StartDate","EnterpriseNumber"');
  const denomination = open(
    'denomination.csv',
    '"EntityNumber","Language","TypeOfDenomination","Denomination"',
  );
  const address = open(
    'address.csv',
    '"EntityNumber","TypeOfAddress","CountryNL","CountryFR","Zipcode","MunicipalityNL","MunicipalityFR","StreetNL","StreetFR","HouseNumber","Box","ExtraAddressInfo","DateStrikingOff"',
  );
  const contact = open('contact.csv', '"EntityNumber","EntityContact","ContactType","Value"');
  const activity = open(
    'activity.csv',
    '"EntityNumber","ActivityGroup","NaceVersion","NaceCode","Classification"',
  );

  const activities = async (entity: string, count: number) => {
    for (let k = 0; k < count; k++) {
      const nace = skewed(NACE, rnd);
      const group = k % 3 === 0 ? '001' : k % 3 === 1 ? '003' : '006';
      for (const version of ['2008', '2025'])
        await activity.add(`"${entity}","${group}","${version}","${nace}","${k < 3 ? 'MAIN' : 'SECO'}"`);
    }
  };
  // Enterprises: 40 % natural persons (no seat address, activities on their establishments).
  for (let i = 0; i < enterprises; i++) {
    const number = enterpriseNumber(i);
    const natural = i % 5 < 2;
    await enterprise.add(
      `"${number}","AC","000","${natural ? 1 : 2}",${natural ? '' : '"610"'},,${date(rnd)}`,
    );
    await denomination.add(`"${number}","2","001","Onderneming ${i}, ""Voorbeeld"" BV"`);
    if (!natural && rnd() < 0.5) await denomination.add(`"${number}","1","001","Entreprise ${i} SRL"`);
    if (!natural && rnd() < 0.2) await denomination.add(`"${number}","2","002","OND${i}"`);
    if (!natural) {
      const [zip, nl, fr] = skewed(BE_PLACES, rnd);
      await address.add(
        `"${number}","REGO",,,"${zip}","${nl}","${fr}","Kerkstraat","Rue de l'Église","${1 + (i % 200)}","","",`,
      );
      await activities(number, 7 + Math.floor(rnd() * 10));
    }
    if (rnd() < 0.36) await contact.add(`"${number}","ENT","WEB","www.onderneming${i}.be"`);
  }
  // Establishments, in their own number order, each of a random enterprise (mostly natural persons).
  const count = Math.round(enterprises * 0.86);
  for (let j = 0; j < count; j++) {
    const number = establishmentNumber(j);
    const owner = Math.floor(rnd() * enterprises);
    await establishment.add(`"${number}",${date(rnd)},"${enterpriseNumber(owner)}"`);
    const [zip, nl, fr] = skewed(BE_PLACES, rnd);
    await address.add(
      `"${number}","BAET",,,"${zip}","${nl}","${fr}","Dorpsstraat","Rue du Village","${1 + (j % 90)}","","",`,
    );
    if (rnd() < 0.3) await denomination.add(`"${number}","2","003","Winkel ${j}"`);
    await activities(number, 1 + Math.floor(rnd() * 3));
  }
  for (let b = 0; b < Math.ceil(enterprises / 260); b++)
    await branch.add(
      `"${dottedEstablishment(withCheck(String(90_000_000 + b * 3)))}",01-09-2015,"${enterpriseNumber(b)}"`,
    );
  const all = [meta, code, branch, enterprise, establishment, denomination, address, contact, activity];
  await Promise.all(all.map((file) => file.end()));
  return all.reduce((sum, file) => sum + file.rows, 0);
}

const UNIT_HEADER =
  'siren,statutDiffusionUniteLegale,unitePurgeeUniteLegale,dateCreationUniteLegale,sigleUniteLegale,sexeUniteLegale,prenom1UniteLegale,prenom2UniteLegale,prenom3UniteLegale,prenom4UniteLegale,prenomUsuelUniteLegale,pseudonymeUniteLegale,identifiantAssociationUniteLegale,trancheEffectifsUniteLegale,anneeEffectifsUniteLegale,dateDernierTraitementUniteLegale,nombrePeriodesUniteLegale,categorieEntreprise,anneeCategorieEntreprise,dateDebut,etatAdministratifUniteLegale,nomUniteLegale,nomUsageUniteLegale,denominationUniteLegale,denominationUsuelle1UniteLegale,denominationUsuelle2UniteLegale,denominationUsuelle3UniteLegale,categorieJuridiqueUniteLegale,activitePrincipaleUniteLegale,nomenclatureActivitePrincipaleUniteLegale,nicSiegeUniteLegale,economieSocialeSolidaireUniteLegale,societeMissionUniteLegale,caractereEmployeurUniteLegale,activitePrincipaleNAF25UniteLegale';
const ESTABLISHMENT_HEADER =
  'siren,nic,siret,statutDiffusionEtablissement,dateCreationEtablissement,trancheEffectifsEtablissement,anneeEffectifsEtablissement,activitePrincipaleRegistreMetiersEtablissement,dateDernierTraitementEtablissement,etablissementSiege,nombrePeriodesEtablissement,complementAdresseEtablissement,numeroVoieEtablissement,indiceRepetitionEtablissement,dernierNumeroVoieEtablissement,indiceRepetitionDernierNumeroVoieEtablissement,typeVoieEtablissement,libelleVoieEtablissement,codePostalEtablissement,libelleCommuneEtablissement,libelleCommuneEtrangerEtablissement,distributionSpecialeEtablissement,codeCommuneEtablissement,codeCedexEtablissement,libelleCedexEtablissement,codePaysEtrangerEtablissement,libellePaysEtrangerEtablissement,identifiantAdresseEtablissement,coordonneeLambertAbscisseEtablissement,coordonneeLambertOrdonneeEtablissement,complementAdresse2Etablissement,numeroVoie2Etablissement,indiceRepetition2Etablissement,typeVoie2Etablissement,libelleVoie2Etablissement,codePostal2Etablissement,libelleCommune2Etablissement,libelleCommuneEtranger2Etablissement,distributionSpeciale2Etablissement,codeCommune2Etablissement,codeCedex2Etablissement,libelleCedex2Etablissement,codePaysEtranger2Etablissement,libellePaysEtranger2Etablissement,dateDebut,etatAdministratifEtablissement,enseigne1Etablissement,enseigne2Etablissement,enseigne3Etablissement,denominationUsuelleEtablissement,activitePrincipaleEtablissement,nomenclatureActivitePrincipaleEtablissement,caractereEmployeurEtablissement,activitePrincipaleNAF25Etablissement';

const naf = (nace: string) => `${nace.slice(0, 2)}.${nace.slice(2, 4)}Z`;

/** A SIRENE stock pair of `units` units in `dir` (units and establishments files); the number of data rows written. */
export async function writeSireneFiles(dir: string, units: number): Promise<number> {
  await mkdir(dir, { recursive: true });
  // Seeded by the size: a size always gives the same files.
  const rnd = mulberry32(units + 1);
  const unitFile = new Lines(join(dir, 'StockUniteLegale_utf8.csv'), UNIT_HEADER);
  const establishmentFile = new Lines(join(dir, 'StockEtablissement_utf8.csv'), ESTABLISHMENT_HEADER);
  for (let i = 0; i < units; i++) {
    const body = String(10_000_000 + i * 3).padStart(8, '0');
    const siren = body + luhnCheckDigit(body);
    const natural = i % 10 < 3;
    const ceased = rnd() < 0.4;
    const partial = rnd() < 0.05;
    const nace = skewed(NACE, rnd).slice(0, 4);
    const established = `${2000 + Math.floor(rnd() * 25)}-0${1 + Math.floor(rnd() * 9)}-1${Math.floor(rnd() * 9)}`;
    const count = 1 + (rnd() < 0.3 ? 1 + Math.floor(rnd() * 2) : 0);
    const nics = Array.from({ length: count }, (_, k) => {
      const nicBody = String(1 + k).padStart(4, '0');
      return nicBody + luhnCheckDigit(siren + nicBody);
    });
    const head = nics[count - 1]!;
    const names = natural
      ? `${partial ? '[ND]' : 'M'},${partial ? '[ND]' : 'JEAN'},,,,${partial ? '[ND]' : 'JEAN'},,,NN,,2024-05-02T10:01:10,2,PME,2023,${established},${ceased ? 'C' : 'A'},${partial ? '[ND]' : `DUPONT${i}`},,,,,,1000`
      : `,,,,,,,,11,2023,2025-11-03T09:12:44,2,PME,2023,${established},${ceased ? 'C' : 'A'},,,"SOCIETE ${i}, ""EXEMPLE""",,,,5710`;
    await unitFile.add(
      `${siren},${partial ? 'P' : 'O'},,${established},${natural ? '' : `S${i % 1000}`},${names},${naf(nace)},NAFRev2,${head},N,N,,`,
    );
    for (const nic of nics) {
      const [zip, place] = skewed(FR_PLACES, rnd);
      await establishmentFile.add(
        `${siren},${nic},${siren}${nic},${partial ? 'P' : 'O'},${established},,,,2025-11-03T09:12:44,${nic === head},1,,${partial ? '[ND]' : 1 + (i % 120)},,,,${partial ? '[ND]' : 'RUE'},${partial ? '[ND]' : 'DES LILAS'},${partial ? '[ND]' : zip},${place},,,${zip},,,,,,,,,,,,,,,,,,,,,,${established},${ceased ? 'F' : 'A'},${rnd() < 0.2 ? `ENSEIGNE ${i}` : ''},,,,${naf(nace)},NAFRev2,N,`,
      );
    }
  }
  await Promise.all([unitFile.end(), establishmentFile.end()]);
  return unitFile.rows + establishmentFile.rows;
}
