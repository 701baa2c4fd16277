/**
 * Keeping the lookalike lists current (contract §6.3, §11.2). One library, two thin callers:
 *
 * - the import: `deriveLookalikes` (a Derivation) records a changed company's features in its block and
 *   marks it; `recomputeMarked` (a Completion) then recomputes, before the import returns, the lists of
 *   the marked companies and of every company of their sections that a marked company entered or may
 *   have left: those it reaches, with its old or its new features, at or above their floor (their
 *   100th score), found through the section's index (`affectedMembers`: only the cells whose bound
 *   reaches their lowest floor are scored). A run cut off before its completion leaves its marks to the
 *   next run's.
 * - the full job (`npm run lookalikes`, the RecomputeLookalikes Lambda): `recomputeAll` recomputes
 *   every section.
 *
 * Candidates are the companies of the same section (lib/lookalikes/features.ts), read as the blocks of
 * its divisions; each list is found with bounds (lib/lookalikes/compute.ts), never every pair.
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
import {
  featuresOf,
  sameFeatures,
  SECTION_BLOCKS,
  sectionOf,
  sectionOfBlock,
  type LookalikeFeatures,
} from './features';
import { SectionIndex } from './section-index';
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

/** Sections processed at once: one computes while another reads or writes. */
const SECTIONS_IN_FLIGHT = 2;
/** Lists written per batch of subjects: a section's lists are never all held at once. */
const SUBJECTS_PER_WRITE = 2_000;

export interface RecomputeSummary {
  /** Blocks (NACE divisions) read. */
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
  const bySection = new Map<string, { marked: Set<string>; leaving: LookalikeFeatures[] }>();
  const entry = (section: string) => {
    let found = bySection.get(section);
    if (!found) bySection.set(section, (found = { marked: new Set(), leaving: [] }));
    return found;
  };
  for (const mark of marks) {
    entry(sectionOfBlock(mark.block)).marked.add(companyKey(mark.company));
    if (mark.before) entry(sectionOf(mark.before)).leaving.push(mark.before);
  }
  let companies = 0;
  let blocks = 0;
  await forEachLimited([...bySection], SECTIONS_IN_FLIGHT, async ([section, { marked, leaving }]) => {
    const members = await getSection(section);
    blocks += SECTION_BLOCKS.get(section)?.length ?? 0;
    const features = members.map((m) => m.features);
    const isMarked = (f: LookalikeFeatures) => marked.has(companyKey(f));
    // The marked companies as they are now (entering lists) and as they were (leaving them).
    const probes = [...features.filter(isMarked), ...leaving];
    const index = new SectionIndex(features, probes);
    const subjects = new Set(
      affectedMembers(
        index,
        members.map((m) => m.floor),
        probes.length,
      ),
    );
    features.forEach((f, i) => isMarked(f) && subjects.add(i));
    companies += await recomputeSection(members, index, [...subjects]);
  });
  await deleteMarks(marks);
  return { blocks, companies, seconds: (performance.now() - started) / 1000 };
}

/**
 * The full job: every list of every section, from the features stored in the blocks. With
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
  await forEachLimited([...SECTION_BLOCKS.keys()], SECTIONS_IN_FLIGHT, async (section) => {
    const members = await getSection(section);
    blocks += SECTION_BLOCKS.get(section)!.length;
    if (members.length === 0) return;
    const index = new SectionIndex(members.map((m) => m.features));
    companies += await recomputeSection(members, index, 'all');
  });
  await deleteMarks(marks);
  return { blocks, companies, seconds: (performance.now() - started) / 1000 };
}

/** Every company of a section: the blocks of its divisions, read at once. */
async function getSection(section: string): Promise<BlockMember[]> {
  const blocks = await Promise.all((SECTION_BLOCKS.get(section) ?? []).map(getBlock));
  return blocks.flat();
}

/** Computes and writes the lists of `subjects`, a batch at a time. */
async function recomputeSection(
  members: BlockMember[],
  index: SectionIndex,
  subjects: number[] | 'all',
): Promise<number> {
  const all = subjects === 'all' ? members.map((_, i) => i) : subjects;
  for (let from = 0; from < all.length; from += SUBJECTS_PER_WRITE) {
    const lists: ComputedList[] = [];
    computeLists(index, all.slice(from, from + SUBJECTS_PER_WRITE), (subject, list) => {
      const member = members[subject]!;
      lists.push({
        features: member.features,
        packed: packLookalikes(
          list.map(({ index: i, score }) => ({ ref: refOf(members[i]!.features), score })),
        ),
        floor: floorOf(list),
        previousFloor: member.floor,
      });
    });
    await putLists(lists);
  }
  return all.length;
}

const refOf = ({ country, companyNumber }: CompanyRef): CompanyRef => ({ country, companyNumber });
