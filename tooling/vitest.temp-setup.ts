// Every test file's last afterAll (setup files' hooks are registered first, and after-hooks run in
// reverse): the temp folders its helpers made go once its servers and stores are closed.
import { afterAll } from "vitest";
import { removeTestTempDirs } from "./vitest.temp-dirs.ts";

afterAll(removeTestTempDirs);
