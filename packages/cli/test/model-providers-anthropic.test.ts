// The model table's anthropic rows (model-table.ts) through the bundled `agentsvc start`.
import { describeModelRows } from "./model-table.js";

describeModelRows("anthropic");
