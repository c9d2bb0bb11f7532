// EXPLAIN (FORMAT JSON, ANALYZE) plans as the PostgreSQL plan tests read them: the nodes of a plan
// and the rows a relation's scans read.

export interface PlanNode {
  "Node Type": string;
  "Join Type"?: string;
  "Relation Name"?: string;
  "Index Name"?: string;
  "Function Name"?: string;
  "Actual Rows"?: number;
  "Actual Loops"?: number;
  "Rows Removed by Filter"?: number;
  "Rows Removed by Index Recheck"?: number;
  Plans?: PlanNode[];
}

/** `plan` and every node below it. */
export function* nodes(plan: PlanNode): Generator<PlanNode> {
  yield plan;
  for (const child of plan.Plans ?? []) yield* nodes(child);
}

/**
 * Rows the plan's scans of `relation` produced or filtered out, over all their loops (an Update's
 * own node names its relation too, but is not a read).
 */
export function rowsRead(plan: PlanNode, relation: string): number {
  let read = 0;
  for (const node of nodes(plan)) {
    if (node["Relation Name"] !== relation || !node["Node Type"].endsWith("Scan")) continue;
    const perLoop =
      (node["Actual Rows"] ?? 0) +
      (node["Rows Removed by Filter"] ?? 0) +
      (node["Rows Removed by Index Recheck"] ?? 0);
    read += perLoop * (node["Actual Loops"] ?? 1);
  }
  return read;
}
