// The model table's google rows (model-table.ts) through the bundled `agentsvc start`.
import { describeModelRows } from "./model-table.js";

describeModelRows("google");
