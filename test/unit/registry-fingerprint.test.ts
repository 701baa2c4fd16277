/**
 * (ext) A registry unit's fingerprint (lib/import/registry-fingerprint.ts): until its block's digest is
 * read, a block holds each unit as its fingerprint alone, and a block read afresh gets its units back
 * from them — so the fingerprint must give back every part of the unit the import judges, for every
 * case the sample files hold.
 */
import { createHash } from 'node:crypto';
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { addEntry, blockDigest, newBlock, UNIT_RULES_VERSION } from '../../lib/import/registry-digest-block';
import { digestEntry, unitOf } from '../../lib/import/registry-fingerprint';
import { openRegistryFiles } from '../../lib/import/sources/files';
import { readKboFull } from '../../lib/import/sources/kbo';
import { sireneItems } from '../../lib/import/sources/sirene';
import type { ReadItems, RegistryItem, RegistryUnit } from '../../lib/import/sources/unit';
import { gathered, mappedBack, readItemsOf } from '../support/registry-items';

const FIXTURES = join(__dirname, '../fixtures/registries');

const units = (items: RegistryItem[]): RegistryUnit[] =>
  items.flatMap((item) => (item.kind === 'unit' ? [item.unit] : []));

/** The unit as a block read afresh gets it back from its fingerprint, at its own source. */
function roundTrip(unit: RegistryUnit): RegistryItem {
  const { fingerprint } = digestEntry({ kind: 'unit', unit }, false);
  return unitOf(fingerprint!, unit.source);
}

describe('a registry unit held as its fingerprint', () => {
  it('comes back whole from a KBO full extract: fields, rows kept for updates, links to its establishments', async () => {
    const files = await openRegistryFiles(join(FIXTURES, 'kbo-full'));
    const read = units(await gathered((await readKboFull(files)).items));
    await files.close();

    expect(read.some((unit) => (unit.links ?? []).length > 0)).toBe(true);
    expect(read.every((unit) => unit.registryRows !== undefined)).toBe(true);
    for (const unit of read) expect(roundTrip(unit)).toEqual({ kind: 'unit', unit });
  });

  it('comes back whole from a SIRENE pair: the head office address, a partially diffusible unit, a ceased one', async () => {
    const read = units(
      await gathered(
        sireneItems(
          await openRegistryFiles(join(FIXTURES, 'sirene/StockUniteLegale_utf8.csv')),
          await openRegistryFiles(join(FIXTURES, 'sirene/StockEtablissement_utf8.csv')),
        ),
      ),
    );

    expect(read.some((unit) => unit.fields.address)).toBe(true);
    expect(read.some((unit) => unit.fields.stoppedOn)).toBe(true);
    for (const unit of read) expect(roundTrip(unit)).toEqual({ kind: 'unit', unit });
  });

  it('differs when anything the import keeps of the unit differs, its source aside', () => {
    const unit: RegistryUnit = {
      source: { file: 'enterprise.csv', line: 2 },
      country: 'BE',
      companyNumber: '0403.170.701',
      owns: ['name', 'address'],
      fields: { name: 'Acme NV', address: null },
      dropped: 0,
      registryRows: { enterprise: ['0403.170.701'] },
      addressForms: [{ street: 'Kerkstraat', place: 'Gent' }],
      links: ['2000000001'],
    };
    const fingerprint = (u: RegistryUnit) => digestEntry({ kind: 'unit', unit: u }, false).fingerprint;
    const same = fingerprint({ ...unit, source: { file: 'enterprise.csv', line: 90 } });
    const others = [
      { ...unit, fields: { ...unit.fields, name: 'Acme BV' } },
      { ...unit, dropped: 1 },
      { ...unit, registryRows: { enterprise: ['0403.170.701', 'AC'] } },
      { ...unit, addressForms: [{ street: 'Rue de l’Église', place: 'Gand' }] },
      { ...unit, links: ['2000000002'] },
      { ...unit, owns: ['name'] as RegistryUnit['owns'] },
    ].map(fingerprint);

    expect(same).toBe(fingerprint(unit));
    expect(new Set([fingerprint(unit), ...others]).size).toBe(others.length + 1);
  });
});

describe('a registry unit handed on unmapped (its raw values)', () => {
  it('maps to the very item the converter maps from a KBO full extract', async () => {
    const files = await openRegistryFiles(join(FIXTURES, 'kbo-full'));
    const extract = await readKboFull(files);
    const direct = await gathered(extract.items);
    const back = await mappedBack((await readKboFull(files)).unmapped());
    await files.close();

    expect(back.raw).toBeGreaterThan(0);
    expect(back.items).toEqual(direct);
  });

  it('maps to the very item the converter maps from a SIRENE pair, and with the units file alone', async () => {
    const open = async () => [
      await openRegistryFiles(join(FIXTURES, 'sirene/StockUniteLegale_utf8.csv')),
      await openRegistryFiles(join(FIXTURES, 'sirene/StockEtablissement_utf8.csv')),
    ];
    const [units, offices] = await open();
    const [unitsAgain, officesAgain] = await open();
    const direct = await gathered(sireneItems(units!, offices));
    const back = await mappedBack(sireneItems(unitsAgain!, officesAgain, { unmapped: true }));

    // Every unit row is handed on raw, rejected and withheld ones included.
    expect(back.raw).toBe(direct.length);
    expect(back.items).toEqual(direct);
    expect(direct.some((item) => item.kind === 'skipped')).toBe(true);
    expect(direct.some((item) => item.kind === 'unit' && item.unit.fields.address)).toBe(true);

    const [alone] = await open();
    const [aloneAgain] = await open();
    expect((await mappedBack(sireneItems(aloneAgain!, undefined, { unmapped: true }))).items).toEqual(
      await gathered(sireneItems(alone!, undefined)),
    );
  });

  it('differs in mapping version with and without the establishments file', async () => {
    const versions = new Set<string>();
    for (const offices of [true, false]) {
      const units = await openRegistryFiles(join(FIXTURES, 'sirene/StockUniteLegale_utf8.csv'));
      const establishments = offices
        ? await openRegistryFiles(join(FIXTURES, 'sirene/StockEtablissement_utf8.csv'))
        : undefined;
      for await (const batch of sireneItems(units, establishments, { unmapped: true }))
        for (const item of batch) if (item.kind === 'raw') versions.add(item.mapping.version);
    }
    expect(versions.size).toBe(2);
  });
});

/** What an unmapped stream says to the digests: each raw unit's text, each other item whole. */
async function digestView(items: ReadItems): Promise<string[]> {
  const view: string[] = [];
  for await (const item of readItemsOf(items))
    view.push(item.kind === 'raw' ? `raw ${item.text}` : JSON.stringify(item));
  return view;
}

/** A registry's files in a folder: its unmapped stream and its items as the converter maps them. */
interface Registry {
  tables: string[];
  fixture: string;
  unmapped(dir: string): Promise<string[]>;
  mapped(dir: string): Promise<string>;
}

const KBO: Registry = {
  tables: ['enterprise', 'denomination', 'address', 'contact', 'activity', 'establishment'],
  fixture: join(FIXTURES, 'kbo-full'),
  unmapped: async (dir) => {
    const files = await openRegistryFiles(dir);
    try {
      return await digestView((await readKboFull(files)).unmapped());
    } finally {
      await files.close();
    }
  },
  mapped: async (dir) => {
    const files = await openRegistryFiles(dir);
    try {
      return JSON.stringify(await gathered((await readKboFull(files)).items));
    } finally {
      await files.close();
    }
  },
};

const sireneFiles = async (dir: string) =>
  [
    await openRegistryFiles(join(dir, 'StockUniteLegale_utf8.csv')),
    await openRegistryFiles(join(dir, 'StockEtablissement_utf8.csv')),
  ] as const;

const SIRENE: Registry = {
  tables: ['StockUniteLegale_utf8', 'StockEtablissement_utf8'],
  fixture: join(FIXTURES, 'sirene'),
  unmapped: async (dir) => {
    const [units, offices] = await sireneFiles(dir);
    return digestView(sireneItems(units, offices, { unmapped: true }));
  },
  mapped: async (dir) => {
    const [units, offices] = await sireneFiles(dir);
    return JSON.stringify(await gathered(sireneItems(units, offices)));
  },
};

describe("a unit's raw text, the digest's part of it", () => {
  it.each([
    ['a KBO enterprise', KBO, 'kbo', 20],
    ['a SIRENE unit', SIRENE, 'sirene', 10],
  ] as const)(
    '%s: differs whenever a character of a value in any of its files changes what the converter maps',
    async (_, registry, name, least) => {
      const scratch = await mkdtemp(join(tmpdir(), `${name}-raw-`));
      const original = registry.fixture;
      try {
        const texts = new Map<string, string>();
        for (const table of registry.tables)
          texts.set(table, await readFile(join(original, `${table}.csv`), 'utf8'));
        const [viewBefore, mappedBefore] = [
          await registry.unmapped(original),
          await registry.mapped(original),
        ];
        let seen = 0;
        let run = 0;
        await fc.assert(
          fc.asyncProperty(
            fc.constantFrom(...registry.tables),
            fc.nat(),
            fc.constantFrom('7', 'Z', 'é', ' '),
            async (table, at, next) => {
              // A character of a value (past the header; not a quote, comma or line break) changed.
              const text = texts.get(table)!;
              const header = text.indexOf('\n') + 1;
              const positions = [...text.slice(header)].flatMap((c, i) =>
                '",\r\n'.includes(c) || c === next ? [] : [header + i],
              );
              const position = positions[at % positions.length]!;
              const dir = join(scratch, String(run++));
              await cp(original, dir, { recursive: true });
              await writeFile(
                join(dir, `${table}.csv`),
                text.slice(0, position) + next + text.slice(position + 1),
              );
              const mapped = await registry.mapped(dir).catch(() => mappedBefore);
              if (mapped === mappedBefore) return;
              seen++;
              expect(await registry.unmapped(dir)).not.toEqual(viewBefore);
            },
          ),
          { numRuns: 60, seed: 34 },
        );
        expect(seen).toBeGreaterThan(least);
      } finally {
        await rm(scratch, { recursive: true, force: true });
      }
    },
  );
});

describe("a block's digest", () => {
  it('is the SHA-256 of the rules, the mapping, --active-only and the parts one a line: the digests stored before still match', () => {
    const block = newBlock('123456', { country: 'FR', companyNumber: '123456789' }, true);
    const mapping = { version: 'sirene-map-1+establishments', map: () => ({}) as RegistryItem };
    const texts = ['["123456789","O"]', '["123456790","P"]', '["123456791","[ND]"]'];
    texts.forEach((text, line) =>
      addEntry(
        block,
        { kind: 'raw', source: { file: 'u.csv', line }, company: undefined, text, mapping },
        undefined,
      ),
    );
    for (const activeOnly of [false, true]) {
      const joined = `${UNIT_RULES_VERSION}\n${mapping.version}\n${activeOnly ? 'active-only' : ''}\n${texts.join('\n')}`;
      expect(blockDigest(block, activeOnly)).toBe(createHash('sha256').update(joined).digest('base64url'));
    }
  });
});
