import { resolve } from "node:path";
import { ChatDb, openPostgresChatDb } from "@agentsvc/chat-store";
import type { Project, WebuiExposure } from "@agentsvc/config-schema";
import type { Logger } from "pino";

/**
 * One ChatDb per distinct store: per SQLite file, or per PostgreSQL datasource. The primary store
 * (agent memory, suspended runs, gateway inbox and outbox) is the config's `store` datasource, else
 * the first webui entry's database, else `./data/agentsvc.db`.
 */
export class StoreSet {
  private readonly byKey = new Map<string, Promise<ChatDb>>();

  constructor(
    private readonly project: Project,
    private readonly logger: Logger,
    private readonly env: NodeJS.ProcessEnv = process.env,
  ) {}

  forEntry(entry: WebuiExposure): Promise<ChatDb> {
    return this.open(entry.database.path, entry.database.datasource, entry.file);
  }

  primary(): Promise<ChatDb> {
    const configured = this.project.config.store;
    if (configured) return this.open("./data/agentsvc.db", configured, this.configFile());
    const web = this.project.exposures.find((e): e is WebuiExposure => e.exposes === "webui");
    return web ? this.forEntry(web) : this.open("./data/agentsvc.db", "agentsvc", this.configFile());
  }

  private configFile(): string {
    return this.project.configFile ?? "agentsvc.config";
  }

  private open(path: string, datasource: string, source: string): Promise<ChatDb> {
    const declared = this.project.config.datasources[datasource];
    const key = declared?.type === "postgres" ? `postgres:${datasource}` : resolve(this.project.root, path);
    let db = this.byKey.get(key);
    if (!db) {
      const logger = this.logger.child({ name: "store" });
      db =
        declared?.type === "postgres"
          ? openPostgresChatDb({
              name: datasource,
              datasource: declared,
              appRoot: this.project.root,
              env: this.env,
              source: this.configFile(),
              logger,
            })
          : Promise.resolve(
              ChatDb.open({
                path,
                appRoot: this.project.root,
                datasource,
                datasources: this.project.config.datasources,
                source,
                logger,
                // store.durability applies to every SQLite file of the project (power by default).
                ...(this.project.config.storeDurability
                  ? { durability: this.project.config.storeDurability }
                  : {}),
              }),
            );
      this.byKey.set(key, db);
    }
    return db;
  }

  /** Closes every store (a PostgreSQL pool ends before this resolves). */
  async close(): Promise<void> {
    const all = [...this.byKey.values()];
    this.byKey.clear();
    for (const pending of all) {
      const db = await pending.catch(() => undefined);
      if (!db) continue;
      db.close();
      await db.closedSettled;
    }
  }
}
