import { DUE_INDEX, DUE_INDEX_SHARDS, dueIndexKeys } from '#lib/store/dynamo/keys';
import { belowInIndex, countAll } from '#lib/store/dynamo/query';

/** How many entries of each shard of the due index are due at `now`: one counting Query per shard, in parallel. */
export function dueCounts(now: number): Promise<number[]> {
  return Promise.all(
    Array.from({ length: DUE_INDEX_SHARDS }, (_, shard) =>
      countAll(belowInIndex(DUE_INDEX, dueIndexKeys.shard(shard), dueIndexKeys.dueBound(now))),
    ),
  );
}
