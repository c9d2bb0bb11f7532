// The model table (model-table.ts) through the bundled `agentsvc start`: every row side by side.
import { describeModelRows } from "./model-table.js";

describeModelRows();
