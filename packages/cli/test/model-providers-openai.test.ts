// The model table's openai rows (model-table.ts) through the bundled `agentsvc start`.
import { describeModelRows } from "./model-table.js";

describeModelRows("openai");
