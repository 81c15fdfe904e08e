/** Printing of the JSON contract objects (docs/architecture.md, "Benchmarks and the differential test"). */

export interface Report {
  readonly name: string;
  readonly params: object;
  readonly metrics: object;
}

/** One JSON object on stdout with --json; otherwise `name  metric=value` lines. */
export function printReport(report: Report, json: boolean): void {
  if (json) {
    process.stdout.write(`${JSON.stringify(report)}\n`);
    return;
  }
  process.stdout.write(`${report.name} ${JSON.stringify(report.params)}\n`);
  for (const [k, v] of Object.entries(report.metrics)) process.stdout.write(`  ${k.padEnd(24)} ${String(v)}\n`);
}
