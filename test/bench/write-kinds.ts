/**
 * An import's recorded write requests (test/bench/recording-proxy.ts) counted by item kind — what the
 * table's key patterns (lib/storage/keys.ts) say each item is: items, those in transactions, with a
 * condition, as updates, their size and the write units DynamoDB bills for them (1 a KB, twice in a
 * transaction, again for an index entry), per company: the bills of docs/scale.md from what the import
 * really writes.
 */
/** One recorded request (test/bench/recording-proxy.ts) with its JSON body parsed. */
export interface ParsedRequest {
  /** The operation, e.g. `BatchWriteItem`. */
  operation: string;
  body: Record<string, unknown>;
}

export type Wire = Record<string, unknown>;
export type Action = {
  kind: 'Put' | 'Update' | 'Delete' | 'ConditionCheck';
  action: Wire;
  transaction: boolean;
};

/** Every item action of a request, in order: a batch's puts and deletes, a transaction's actions. */
export function actionsOf(request: ParsedRequest): Action[] {
  const { operation, body } = request;
  if (operation === 'BatchWriteItem') {
    return Object.values(body['RequestItems'] as Record<string, Wire[]>).flatMap((list) =>
      list.map((entry) =>
        entry['PutRequest']
          ? { kind: 'Put' as const, action: entry['PutRequest'] as Wire, transaction: false }
          : { kind: 'Delete' as const, action: entry['DeleteRequest'] as Wire, transaction: false },
      ),
    );
  }
  if (operation === 'TransactWriteItems') {
    return (body['TransactItems'] as Wire[]).map((entry) => {
      const [kind, action] = Object.entries(entry)[0]!;
      return { kind: kind as Action['kind'], action: action as Wire, transaction: true };
    });
  }
  const kind = operation.replace(/Item$/, '') as Action['kind'];
  return [{ kind, action: body, transaction: false }];
}

export const keyOf = (action: Action): { pk: string; sk: string } => {
  const item = (action.action['Item'] ?? action.action['Key']) as Record<string, { S: string }>;
  return { pk: item['pk']!.S, sk: item['sk']!.S };
};

/** What the table's key patterns (lib/storage/keys.ts) say an item is. */
export function itemKind(pk: string, sk: string): string {
  const [head, second, third] = pk.split('#');
  if (head === 'COMPANY') return `company ${sk.split('#')[0]!.toLowerCase()}`;
  if (head === 'FILTER_PROFILES') {
    if (third === 'ACT' || third === 'PLACE' || third === 'RANGE') return `filter entry ${third}`;
    return 'filter profile';
  }
  if (head === 'LOOKALIKE_BLOCK') return sk.startsWith('FLOOR#') ? 'lookalike floor' : 'lookalike features';
  if (head === 'MATCH') return `match index ${second}`;
  if (head === 'MATCH_COUNTS') return `match counts ${sk.split('#')[0]}`;
  return head!.toLowerCase().replace(/_/g, ' ');
}

/** DynamoDB's size of one attribute value (bytes), as it bills it. */
function valueSize(value: Wire): number {
  const [type, inner] = Object.entries(value)[0]!;
  switch (type) {
    case 'S':
      return Buffer.byteLength(inner as string);
    case 'N':
      return Math.ceil(String(inner).replace(/^-|\.|e.*$/gi, '').length / 2) + 1;
    case 'B':
      return Buffer.from(inner as string, 'base64').length;
    case 'SS':
      return (inner as string[]).reduce((sum, s) => sum + Buffer.byteLength(s), 0);
    case 'NS':
      return (inner as string[]).reduce((sum, n) => sum + Math.ceil(n.length / 2) + 1, 0);
    case 'BS':
      return (inner as string[]).reduce((sum, b) => sum + Buffer.from(b, 'base64').length, 0);
    case 'L':
      return 3 + (inner as Wire[]).reduce((sum, v) => sum + 1 + valueSize(v), 0);
    case 'M':
      return 3 + attributesSize(inner as Record<string, Wire>, 1);
    default:
      return 1;
  }
}

const attributesSize = (attributes: Record<string, Wire>, extra = 0) =>
  Object.entries(attributes).reduce(
    (sum, [name, value]) => sum + Buffer.byteLength(name) + valueSize(value) + extra,
    0,
  );

/**
 * An action's item size as far as the request tells it: a put's whole item; an update's key and the
 * values it sets or adds (the stored item may be larger: a lower bound); a delete's key.
 */
function actionSize(action: Action): number {
  const a = action.action;
  if (action.kind === 'Put') return attributesSize(a['Item'] as Record<string, Wire>);
  const key = attributesSize(a['Key'] as Record<string, Wire>);
  if (action.kind !== 'Update') return key;
  const names = (a['ExpressionAttributeNames'] ?? {}) as Record<string, string>;
  const values = (a['ExpressionAttributeValues'] ?? {}) as Record<string, Wire>;
  const update = String(a['UpdateExpression'] ?? '');
  let size = key;
  for (const [placeholder, value] of Object.entries(values)) {
    if (!mentions(update, placeholder)) continue;
    // Name the value is stored under: the placeholder's neighbour in the expression, as near as it says.
    const named = new RegExp(
      `(#\\w+|\\w+)\\s*(?:=|\\s)\\s*(?:if_not_exists\\([^)]*\\)\\s*)?${placeholder}\\b`,
    ).exec(update);
    size += Buffer.byteLength(named ? (names[named[1]!] ?? named[1]!) : '') + valueSize(value);
  }
  return size;
}

export const mentions = (expression: string, placeholder: string) =>
  new RegExp(`${placeholder.replace(/[#:]/g, '\\$&')}(?!\\w)`).test(expression);

const hasIndexAttributes = (action: Action) => {
  const item = action.action['Item'] as Record<string, unknown> | undefined;
  if (item) return 'gsi1pk' in item;
  const names = Object.values((action.action['ExpressionAttributeNames'] ?? {}) as Record<string, string>);
  return names.includes('gsi1pk') || String(action.action['UpdateExpression'] ?? '').includes('gsi1pk');
};

export interface KindCount {
  items: number;
  transactionItems: number;
  conditional: number;
  updates: number;
  bytes: number;
  /** Write units as DynamoDB bills them from the sizes above: 1 a KB, twice in a transaction, plus the index's. */
  writeUnits: number;
  indexWrites: number;
}

/** Adds a request's actions to the counts by item kind. */
export function countActions(kinds: Map<string, KindCount>, actions: Action[]): void {
  for (const action of actions) {
    if (action.kind === 'ConditionCheck') continue;
    const { pk, sk } = keyOf(action);
    const kind = itemKind(pk, sk);
    const count = kinds.get(kind) ?? {
      items: 0,
      transactionItems: 0,
      conditional: 0,
      updates: 0,
      bytes: 0,
      writeUnits: 0,
      indexWrites: 0,
    };
    const size = actionSize(action);
    const units = Math.max(1, Math.ceil(size / 1024)) * (action.transaction ? 2 : 1);
    const index = hasIndexAttributes(action) ? 1 : 0;
    count.items += 1;
    count.transactionItems += action.transaction ? 1 : 0;
    count.conditional += action.action['ConditionExpression'] ? 1 : 0;
    count.updates += action.kind === 'Update' ? 1 : 0;
    count.bytes += size;
    count.writeUnits += units + index * units;
    count.indexWrites += index;
    kinds.set(kind, count);
  }
}

/** The counts by item kind, each figure per company. */
export function perCompany(kinds: Map<string, KindCount>, companies: number): Map<string, KindCount> {
  return new Map(
    [...kinds].map(([kind, count]) => [
      kind,
      Object.fromEntries(
        Object.entries(count).map(([field, n]) => [field, n / companies]),
      ) as unknown as KindCount,
    ]),
  );
}

/** The breakdown as a table, most items first. */
export function formatBreakdown(kinds: Map<string, KindCount>): string[] {
  const rows = [...kinds].sort(([, a], [, b]) => b.items - a.items);
  const total = rows.reduce(
    (sum, [, c]) => ({ items: sum.items + c.items, writeUnits: sum.writeUnits + c.writeUnits }),
    { items: 0, writeUnits: 0 },
  );
  const cell = (n: number, width = 8) => n.toFixed(2).padStart(width);
  return [
    'item kind                  items  in trans.  conditional  updates  bytes each  write units  index writes',
    ...rows.map(
      ([kind, c]) =>
        kind.padEnd(24) +
        cell(c.items) +
        cell(c.transactionItems, 11) +
        cell(c.conditional, 13) +
        cell(c.updates, 9) +
        String(Math.round(c.bytes / c.items)).padStart(12) +
        cell(c.writeUnits, 13) +
        cell(c.indexWrites, 14),
    ),
    `${'all'.padEnd(24)}${cell(total.items)}${' '.repeat(45)}${cell(total.writeUnits, 24)}`,
  ];
}

/** A request, with the label its figures go under when it is not its operation's. */
export type Labelled = ParsedRequest & { label?: string };

/**
 * The BatchWriteItem entries gathered by item kind, in their recorded order, as requests of 25 labelled
 * `BatchWriteItem <kind>`; every other request as it is. The new requests ask for the consumed capacity
 * when the recorded ones did (`ReturnConsumedCapacity`): DynamoDB Local prices that per item.
 */
export function splitByItemKind(requests: readonly ParsedRequest[], sortedByKey = false): Labelled[] {
  const others: Labelled[] = [];
  const byKind = new Map<string, { table: string; entries: Wire[] }>();
  let capacity: Wire = {};
  for (const request of requests) {
    if (request.operation !== 'BatchWriteItem') {
      others.push(request);
      continue;
    }
    const asked = request.body['ReturnConsumedCapacity'];
    if (asked !== undefined) capacity = { ReturnConsumedCapacity: asked };
    for (const [table, entries] of Object.entries(request.body['RequestItems'] as Record<string, Wire[]>))
      for (const entry of entries) {
        const put = entry['PutRequest'] as Wire | undefined;
        const action = put ?? (entry['DeleteRequest'] as Wire);
        const { pk, sk } = keyOf({ kind: put ? 'Put' : 'Delete', action, transaction: false });
        const kind = itemKind(pk, sk);
        const list = byKind.get(kind) ?? byKind.set(kind, { table, entries: [] }).get(kind)!;
        list.entries.push(entry);
      }
  }
  const split: Labelled[] = [];
  if (sortedByKey) {
    // Every entry in one list, sorted by key (stable): a kind's items come together, as do a company's.
    const keyText = (entry: Wire) => {
      const put = entry['PutRequest'] as Wire | undefined;
      const { pk, sk } = keyOf({
        kind: put ? 'Put' : 'Delete',
        action: put ?? (entry['DeleteRequest'] as Wire),
        transaction: false,
      });
      return `${pk}\u0000${sk}`;
    };
    const [table] = [...byKind.values()].map((kind) => kind.table);
    const all = [...byKind.values()]
      .flatMap((kind) => kind.entries)
      .map((entry) => ({ entry, key: keyText(entry) }));
    all.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    for (let at = 0; at < all.length; at += 25)
      split.push({
        operation: 'BatchWriteItem',
        label: 'BatchWriteItem sorted by key',
        body: { RequestItems: { [table!]: all.slice(at, at + 25).map(({ entry }) => entry) }, ...capacity },
      });
    return [...split, ...others];
  }
  for (const [kind, { table, entries }] of byKind)
    for (let at = 0; at < entries.length; at += 25)
      split.push({
        operation: 'BatchWriteItem',
        label: `BatchWriteItem ${kind}`,
        body: { RequestItems: { [table]: entries.slice(at, at + 25) }, ...capacity },
      });
  return [...split, ...others];
}
