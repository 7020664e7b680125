/**
 * A map whose keys can also be walked in byte order (etcd's and the watch cache's btree order). The sorted key
 * array is rebuilt lazily after an insertion out of order or a removal, so a burst of writes costs one sort at the
 * next read; appending a key that sorts last (sequential names) keeps the array without a sort.
 */
export class SortedKeyMap<V> {
  private readonly map = new Map<string, V>();
  private sorted: string[] | undefined = [];

  get size(): number {
    return this.map.size;
  }

  get(key: string): V | undefined {
    return this.map.get(key);
  }

  has(key: string): boolean {
    return this.map.has(key);
  }

  set(key: string, value: V): void {
    if (!this.map.has(key) && this.sorted !== undefined) {
      const last = this.sorted[this.sorted.length - 1];
      if (last === undefined || last < key) this.sorted.push(key);
      else this.sorted = undefined;
    }
    this.map.set(key, value);
  }

  delete(key: string): boolean {
    const had = this.map.delete(key);
    if (had) this.sorted = undefined;
    return had;
  }

  clear(): void {
    this.map.clear();
    this.sorted = [];
  }

  values(): IterableIterator<V> {
    return this.map.values();
  }

  /** All keys in byte order. The array is shared: do not modify it. */
  keys(): readonly string[] {
    if (this.sorted === undefined) this.sorted = [...this.map.keys()].sort();
    return this.sorted;
  }

  /** Index in {@link keys} of the first key ≥ `key`. */
  lowerBound(key: string): number {
    const keys = this.keys();
    let lo = 0;
    let hi = keys.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (keys[mid]! < key) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** `[start, end)` indexes in {@link keys} of the keys beginning with `prefix`. */
  prefixRange(prefix: string): [number, number] {
    if (prefix === "") return [0, this.keys().length];
    // Every key with the prefix sorts before prefix + U+FFFF.
    return [this.lowerBound(prefix), this.lowerBound(`${prefix}\uffff`)];
  }
}
