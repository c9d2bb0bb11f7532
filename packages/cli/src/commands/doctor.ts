// `agentsvc doctor`: everything `check` does, then live checks with this environment: each gateway's
// credentials by one cheap authenticated call, each PostgreSQL datasource, each model key. A table
// with the fix per failure; exit 1 when any fails.
import { resolve } from "node:path";
import { type Command, EXIT_FAIL, EXIT_OK } from "../command.js";
import { type CheckResult, checkGateway } from "../doctor/gateway-checks.js";
import { checkDatasources } from "../doctor/datasource-checks.js";
import { checkModelKeys } from "../doctor/model-checks.js";
import { healthLines, serviceHealth } from "../doctor/service-health.js";
import { printIssues } from "../report.js";

export const doctorCommand: Command = {
  name: "doctor",
  summary: "Validate a project, then prove each gateway's credentials work with one cheap live call.",
  args: ["[dir]"],
  options: {
    json: { type: "boolean", description: "one JSON object ({ ok, checks, service }) instead of the table" },
    url: {
      type: "string",
      value: "<url>",
      description: "the running service to ask for its gateways' health (default: the one start recorded)",
    },
  },
  details:
    "Runs check first (exit 1 on an error). Then, with this environment, each gateway adapter package's own\nchecks (the built-in ones: Telegram getMe, Slack auth.test and apps.connections.open, Discord\n/users/@me, /gateway/bot and the message-content intent, Teams a client-credentials token, GitHub\nGET /user and the approvalDestination repository, WhatsApp the phone-number object, Twilio the\naccount, e-mail an IMAP login and SMTP EHLO + AUTH, the signal-cli daemon's /api/v1/check); each\nPostgreSQL datasource (connect, version >= 13, pending migrations); each model key by listing the\nprovider's models (never a paid generation). Nothing is sent to anyone. Exit 1 when any check fails.\nWhen the project has gateways, the running service (--url, else the one `agentsvc start` recorded in\n.agentsvc/service.json) is asked for each gateway's state and the age of its last inbound event and\nlast successful platform call (/health/ready); else it says \"not running\".",
  async run({ values, positionals, io, print }) {
    const dir = resolve(io.cwd, positionals[0] ?? ".");
    const { loadProject, missingDatasourceEnv, missingModelKeys } = await import("@agentsvc/config-schema");
    const loaded = await loadProject(dir);
    const warnings = loaded.ok
      ? [...missingDatasourceEnv(loaded.project, io.env), ...missingModelKeys(loaded.project, io.env)]
      : [];
    await printIssues(print, loaded.ok ? [] : loaded.errors, [...loaded.warnings, ...warnings]);
    if (!loaded.ok) return EXIT_FAIL;
    const results: CheckResult[] = [];
    for (const entry of loaded.project.pushGateways)
      results.push(...(await checkGateway(entry, io.env, dir)));
    results.push(...(await checkDatasources(loaded.project, io.env)));
    results.push(...(await checkModelKeys(loaded.project, io.env)));
    const ok = results.every((r) => r.status !== "failed");
    const { channels, pushGateways } = loaded.project;
    const url = typeof values.url === "string" ? values.url : undefined;
    const service = channels.length + pushGateways.length > 0 ? await serviceHealth(dir, url) : undefined;
    if (values.json)
      print.out(JSON.stringify({ ok, checks: results, ...(service ? { service } : {}) }, null, 2));
    else {
      printResults(print, results);
      for (const line of service ? healthLines(service) : []) print.out(line);
    }
    return ok ? EXIT_OK : EXIT_FAIL;
  },
};

function printResults(print: Parameters<Command["run"]>[0]["print"], results: CheckResult[]): void {
  if (results.length === 0) {
    print.out("nothing to check live (no gateway, postgres datasource or model key)");
    return;
  }
  const width = Math.max(...results.map((r) => r.check.length));
  const mark = {
    ok: print.style("out", "green", "ok    "),
    failed: print.style("out", "red", "FAILED"),
  };
  for (const r of results) {
    print.out(`${mark[r.status]}  ${r.check.padEnd(width)}  ${r.detail}`);
    if (r.fix) print.out(`${" ".repeat(8 + width)}  fix: ${r.fix}`);
  }
  const failed = results.filter((r) => r.status === "failed").length;
  print.out(failed ? `${failed} of ${results.length} checks failed` : `all ${results.length} checks passed`);
}
