/**
 * Keeping the lookalike lists current (contract §6.3, §11.2). One library, two thin callers:
 *
 * - the import: `deriveLookalikes` (a Derivation) records a changed company's features in its block and
 *   marks it; `recomputeMarked` (a Completion) then recomputes, before the import returns, the lists of
 *   the marked companies and of every company of their blocks that a marked company entered or may
 *   have left: those it reaches, with its old or its new features, at or above their floor (their
 *   100th score). A run cut off before its completion leaves its marks to the next run's.
 * - the full job (`npm run lookalikes`, the RecomputeLookalikes Lambda): `recomputeAll` recomputes
 *   every block.
 *
 * Candidates are the companies of the same block (NACE division): no comparison across the whole data.
 */
import { companyKey, type CompanyRef } from '../companies/identifiers';
import { forEachLimited } from '../concurrency';
import type { CompanyChange, Derived } from '../import/change';
import {
  deleteMarks,
  getBlock,
  getMarks,
  putLists,
  rebuildFeatures,
  changeWrites,
  type BlockMember,
  type ComputedList,
} from './block-store';
import { affectedMembers, computeLists, floorOf } from './compute';
import { ALL_BLOCKS, blockOf, featuresOf, sameFeatures, type LookalikeFeatures } from './features';
import { packLookalikes } from './store';
import type { StorageAccess } from '../storage/access';
import { partitions } from '../storage/keys';

/**
 * What the full job touches (the RecomputeLookalikes Lambda's IAM policy is made from this): it reads
 * the blocks and the marks, writes the lists and floors, deletes the marks. Not `rebuildFeatures`: that
 * Scans the whole table, which no function may do; an operator runs it (`npm run lookalikes`).
 */
export const recomputeAllStorage = {
  Query: [partitions.lookalikeBlock, partitions.lookalikeMarks],
  BatchWriteItem: [partitions.lookalikeBlock, partitions.company, partitions.lookalikeMarks],
} as const satisfies StorageAccess;

/** Blocks processed at once: one computes while another reads or writes. */
const BLOCKS_IN_FLIGHT = 4;

export interface RecomputeSummary {
  blocks: number;
  companies: number;
  seconds: number;
}

/** The Derivation: a change of what lookalikes are compared on (or of the name shown) marks the company. */
export async function deriveLookalikes({ before, after, changeId }: CompanyChange): Promise<Derived> {
  const old = before && featuresOf(before);
  const now = featuresOf(after);
  return sameFeatures(old, now) ? { updates: 0 } : { updates: 0, writes: changeWrites(old, now, changeId) };
}

/** The Completion: recomputes what the marked changes touch, then drops the marks. */
export async function recomputeMarked(): Promise<RecomputeSummary> {
  const started = performance.now();
  const marks = await getMarks();
  if (marks.length === 0) return { blocks: 0, companies: 0, seconds: 0 };
  const byBlock = new Map<string, { marked: Set<string>; leaving: LookalikeFeatures[] }>();
  const entry = (block: string) => {
    let found = byBlock.get(block);
    if (!found) byBlock.set(block, (found = { marked: new Set(), leaving: [] }));
    return found;
  };
  for (const mark of marks) {
    entry(mark.block).marked.add(companyKey(mark.company));
    if (mark.before) entry(blockOf(mark.before)).leaving.push(mark.before);
  }
  let companies = 0;
  await forEachLimited([...byBlock], BLOCKS_IN_FLIGHT, async ([block, { marked, leaving }]) => {
    const members = await getBlock(block);
    const features = members.map((m) => m.features);
    const isMarked = (f: LookalikeFeatures) => marked.has(companyKey(f));
    // The marked companies as they are now (entering lists) and as they were (leaving them).
    const probes = [...features.filter(isMarked), ...leaving];
    const subjects = new Set(
      affectedMembers(
        features,
        members.map((m) => m.floor),
        probes,
      ),
    );
    features.forEach((f, i) => isMarked(f) && subjects.add(i));
    const recomputed = await recomputeBlock(
      members,
      subjects.size * 2 > members.length ? 'all' : [...subjects],
    );
    companies += recomputed;
  });
  await deleteMarks(marks);
  return { blocks: byBlock.size, companies, seconds: (performance.now() - started) / 1000 };
}

/**
 * The full job: every list of every block, from the features stored in the blocks. With
 * `rebuildFeatures`, the features are first written again from the stored companies (a table imported
 * before lookalikes existed; a Scan, so only for that).
 */
export async function recomputeAll(options: { rebuildFeatures?: boolean } = {}): Promise<RecomputeSummary> {
  const started = performance.now();
  if (options.rebuildFeatures) await rebuildFeatures();
  // Marks read before the blocks: whatever is marked later is left to the next completion.
  const marks = await getMarks();
  let companies = 0;
  let blocks = 0;
  await forEachLimited([...ALL_BLOCKS], BLOCKS_IN_FLIGHT, async (block) => {
    const members = await getBlock(block);
    if (members.length === 0) return;
    blocks++;
    const recomputed = await recomputeBlock(members, 'all');
    companies += recomputed;
  });
  await deleteMarks(marks);
  return { blocks, companies, seconds: (performance.now() - started) / 1000 };
}

async function recomputeBlock(members: BlockMember[], subjects: number[] | 'all'): Promise<number> {
  const features = members.map((m) => m.features);
  const lists: ComputedList[] = [];
  computeLists(features, subjects, (subject, list) => {
    const member = members[subject]!;
    lists.push({
      features: member.features,
      packed: packLookalikes(list.map(({ index, score }) => ({ ref: refOf(features[index]!), score }))),
      floor: floorOf(list),
      previousFloor: member.floor,
    });
  });
  await putLists(lists);
  return lists.length;
}

const refOf = ({ country, companyNumber }: CompanyRef): CompanyRef => ({ country, companyNumber });
