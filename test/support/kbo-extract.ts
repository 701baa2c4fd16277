/**
 * The KBO full extract as the converter tests read it: its items, and the items of its unmapped stream
 * (a re-import's) mapped back, with the mapping versions they came with.
 */
import { join } from 'node:path';
import { openRegistryFiles } from '../../lib/import/sources/files';
import { readKboFull } from '../../lib/import/sources/kbo';
import type { RegistryItem } from '../../lib/import/sources/unit';
import { gathered, mappedBack, readItemsOf } from './registry-items';

/** The sample full extract (test/fixtures/registries/kbo-full). */
export const FULL = join(__dirname, '../fixtures/registries/kbo-full');

/** The items of the extract at `path` (its folder or ZIP); `runSize`: the establishments' sorted runs. */
export async function convert(path: string, runSize?: number): Promise<RegistryItem[]> {
  const files = await openRegistryFiles(path);
  try {
    return await gathered((await readKboFull(files, runSize ? { runs: { runSize } } : {})).items);
  } finally {
    await files.close();
  }
}

/** The extract as a re-import reads it (its unmapped stream), each raw unit mapped back. */
export async function readAgain(path: string): ReturnType<typeof mappedBack> {
  const files = await openRegistryFiles(path);
  try {
    return await mappedBack((await readKboFull(files)).unmapped());
  } finally {
    await files.close();
  }
}

/** The raw texts of the extract's unmapped stream. */
export async function rawTexts(path: string): Promise<string[]> {
  const files = await openRegistryFiles(path);
  const texts: string[] = [];
  try {
    for await (const item of readItemsOf((await readKboFull(files)).unmapped()))
      if (item.kind === 'raw') texts.push(item.text);
  } finally {
    await files.close();
  }
  return texts;
}

/** The version of a re-import's mapping of raw records: it names the files' headers. */
export const RECORDS = /^kbo-map-2\+records:[\w-]{43}$/;
