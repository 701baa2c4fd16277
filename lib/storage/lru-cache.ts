/**
 * Stands in for `mnemonist/lru-cache` in the function bundles (infra/bundling.ts aliases the one to the
 * other). The DynamoDB client keeps its endpoint-discovery cache in one (@aws-sdk/endpoint-cache), built
 * with every client and asked on every request, although no function turns endpoint discovery on; the
 * package and its iterator helpers are about 7 KB of every bundle, which the 250 KB budget cannot spare.
 * This is the same least-recently-used cache on a Map (which keeps insertion order: the first key is the
 * least recently used), with the methods the endpoint cache calls. What runs unbundled uses mnemonist.
 */
export default class LruCache<K, V> {
  private readonly entries = new Map<K, V>();

  constructor(private readonly capacity: number) {}

  /** The value, now the most recently used. */
  get(key: K): V | undefined {
    if (!this.entries.has(key)) return undefined;
    const value = this.entries.get(key)!;
    this.entries.delete(key);
    this.entries.set(key, value);
    return value;
  }

  /** The value, its place in the order left as it is. */
  peek(key: K): V | undefined {
    return this.entries.get(key);
  }

  set(key: K, value: V): this {
    this.entries.delete(key);
    this.entries.set(key, value);
    if (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value as K);
    return this;
  }

  has(key: K): boolean {
    return this.entries.has(key);
  }

  clear(): void {
    this.entries.clear();
  }

  get size(): number {
    return this.entries.size;
  }
}
