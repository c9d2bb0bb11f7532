// The model table's compatible rows (model-table.ts) through the bundled `agentsvc start`.
import { describeModelRows } from "./model-table.js";

describeModelRows("compatible");
