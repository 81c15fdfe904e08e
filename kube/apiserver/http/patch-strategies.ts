/**
 * The patch strategies of each served resource, read from the description
 * side's /openapi/v2 (JSON) when a strategic merge patch first needs them
 * and kept until the catalog changes (a CRD registered or removed rebuilds
 * the document).
 */
import type { ApiDescription, ServedResource } from '../types.ts';
import { NO_STRATEGIES, type StrategyLookup, strategiesFromOpenApi } from './patch/index.ts';

export class PatchStrategies {
  private doc: unknown;
  private readonly byResource = new Map<string, StrategyLookup>();

  constructor(private readonly description: ApiDescription) {
    description.catalog.onChange(() => {
      this.doc = undefined;
      this.byResource.clear();
    });
  }

  /**
   * @example strategies.of(pods)(['spec', 'containers']) // { mergeKey: 'name' }
   */
  of(r: ServedResource): StrategyLookup {
    const key = `${r.group}/${r.version}/${r.kind}`;
    let lookup = this.byResource.get(key);
    if (lookup === undefined) {
      this.doc ??= this.description.discovery('/openapi/v2', 'application/json')?.body;
      lookup = strategiesFromOpenApi(this.doc, r) ?? NO_STRATEGIES;
      this.byResource.set(key, lookup);
    }
    return lookup;
  }
}
