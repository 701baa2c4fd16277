/**
 * What the registry converter tests share: the items a converter yields gathered (or its unmapped
 * stream's, mapped back), a unit found among them by its number as the file writes it, a rejected item
 * as expected, and files zipped as the registries publish them.
 */
import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { basename } from 'node:path';
import yazl from 'yazl';
import type { ReadItem, ReadItems, RegistryItem, RegistryUnit } from '../../lib/import/sources/unit';

export async function gathered(items: AsyncIterable<RegistryItem>): Promise<RegistryItem[]> {
  const all: RegistryItem[] = [];
  for await (const item of items) all.push(item);
  return all;
}

/** An unmapped stream's items one by one, whether it hands them on alone or several at once. */
export async function* readItemsOf(items: ReadItems): AsyncGenerator<ReadItem> {
  for await (const read of items)
    if (Array.isArray(read)) yield* read as readonly ReadItem[];
    else yield read as ReadItem;
}

/**
 * The items of an unmapped stream, each raw unit mapped as a block read afresh maps it; how many were
 * raw, and the versions of the mappings they came with.
 */
export async function mappedBack(
  items: ReadItems,
): Promise<{ items: RegistryItem[]; raw: number; versions: Set<string> }> {
  const all: RegistryItem[] = [];
  const versions = new Set<string>();
  let raw = 0;
  for await (const item of readItemsOf(items)) {
    if (item.kind === 'raw') {
      raw++;
      versions.add(item.mapping.version);
    }
    all.push(item.kind === 'raw' ? item.mapping.map(item.text, item.source) : item);
  }
  return { items: all, raw, versions };
}

/** The unit of `companyNumber` (as the registry writes it); the test fails without one. */
export function unitOf(items: RegistryItem[], companyNumber: string): RegistryUnit {
  const item = items.find((i) => i.kind === 'unit' && i.unit.companyNumber === companyNumber);
  if (item?.kind !== 'unit') throw new Error(`no unit ${companyNumber}`);
  return item.unit;
}

/** A rejected item as a converter yields it: the file's own name and line, and the reason. */
export const rejected = (file: string, line: number, reason: string): RegistryItem => ({
  kind: 'rejected',
  source: { file, line },
  reason,
});

/** `paths` zipped into `zipPath`, each under its own name; the ZIP's path. */
export async function zipOf(zipPath: string, paths: string[]): Promise<string> {
  const zip = new yazl.ZipFile();
  for (const path of paths) zip.addFile(path, basename(path));
  zip.end();
  const out = createWriteStream(zipPath);
  zip.outputStream.pipe(out);
  await once(out, 'close');
  return zipPath;
}
