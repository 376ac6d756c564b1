// Cursor lists: `{data, hasMore, nextCursor}` pages, walked for the caller.
// `for await (const t of client.transactions.list({customerId}))` yields every
// item of every page, asking for the next page only when the last one is used up.
import type { Page } from './types';

export class CursorList<T> implements AsyncIterable<T> {
  constructor(
    private readonly fetchPage: (cursor: string | undefined) => Promise<Page<T>>,
    private readonly startCursor?: string,
  ) {}

  /** The first page alone (its `nextCursor` continues the list). */
  firstPage(): Promise<Page<T>> {
    return this.fetchPage(this.startCursor);
  }

  /** Every page in turn, until one says there is no more. */
  async *pages(): AsyncGenerator<Page<T>, void, undefined> {
    let cursor = this.startCursor;
    for (;;) {
      const page = await this.fetchPage(cursor);
      yield page;
      if (!page.hasMore || !page.nextCursor) return;
      cursor = page.nextCursor;
    }
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<T, void, undefined> {
    for await (const page of this.pages()) yield* page.data;
  }

  /** The items, every page's, in one array; at most `max` of them when given (and no page beyond). */
  async toArray(max = Infinity): Promise<T[]> {
    const items: T[] = [];
    if (max <= 0) return items;
    for await (const item of this) {
      items.push(item);
      if (items.length >= max) break;
    }
    return items;
  }
}
