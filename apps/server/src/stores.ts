import { resolve } from "node:path";
import { ChatDb } from "@agentsvc/chat-store";
import type { Project, WebuiExposure } from "@agentsvc/config-schema";
import type { Logger } from "pino";

/**
 * One ChatDb per distinct store file. The primary store (agent memory, suspended runs, gateway
 * inbox) is the first webui entry's database, or `./data/agentsvc.db` when there is no webui.
 */
export class StoreSet {
  private readonly byFile = new Map<string, ChatDb>();

  constructor(
    private readonly project: Project,
    private readonly logger: Logger,
  ) {}

  forEntry(entry: WebuiExposure): ChatDb {
    return this.open(entry.database.path, entry.database.datasource, entry.file);
  }

  primary(): ChatDb {
    const web = this.project.exposures.find((e): e is WebuiExposure => e.exposes === "webui");
    return web ? this.forEntry(web) : this.open("./data/agentsvc.db", "agentsvc", "agentsvc.config");
  }

  private open(path: string, datasource: string, source: string): ChatDb {
    const key = resolve(this.project.root, path);
    let db = this.byFile.get(key);
    if (!db) {
      db = ChatDb.open({
        path,
        appRoot: this.project.root,
        datasource,
        datasources: this.project.config.datasources,
        source,
        logger: this.logger.child({ name: "store" }),
      });
      this.byFile.set(key, db);
    }
    return db;
  }

  close(): void {
    for (const db of this.byFile.values()) db.close();
    this.byFile.clear();
  }
}
