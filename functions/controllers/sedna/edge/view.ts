/**
 * What the edge channel knows of the cluster, in the Durable Object's SQLite: the Sedna
 * objects it carries (whole, as watched) and their edge worker pods (owner, worker type,
 * node). Rows carry the list generation that last saw them, so the end of a relist
 * removes what it did not list.
 */
import type { KubeObject } from "../../../../protocol/index.ts";
import type { Sql } from "../../../kit/sql.ts";
import { MetaValues } from "../../../kit/sql-meta.ts";
import { isEdgeKind, type EdgeKind, type WorkerPod } from "./core/targets.ts";

/** An object of the view, as a row names it. */
export interface ViewedObject {
  readonly kind: EdgeKind;
  readonly namespace: string;
  readonly name: string;
}

const SCHEMA = [
  "CREATE TABLE IF NOT EXISTS sedna_edge_objects (kind TEXT NOT NULL, namespace TEXT NOT NULL, name TEXT NOT NULL, uid TEXT NOT NULL, object TEXT NOT NULL, gen INTEGER NOT NULL, PRIMARY KEY (kind, namespace, name))",
  "CREATE INDEX IF NOT EXISTS sedna_edge_objects_namespace ON sedna_edge_objects (namespace)",
  "CREATE INDEX IF NOT EXISTS sedna_edge_objects_uid ON sedna_edge_objects (uid)",
  "CREATE TABLE IF NOT EXISTS sedna_edge_pods (uid TEXT PRIMARY KEY, namespace TEXT NOT NULL, owner_uid TEXT NOT NULL, pod TEXT NOT NULL, gen INTEGER NOT NULL) WITHOUT ROWID",
  "CREATE INDEX IF NOT EXISTS sedna_edge_pods_namespace ON sedna_edge_pods (namespace)",
];

/** How many parsed objects {@link EdgeView.find} keeps in memory (a status report reads its object; a job on many nodes is a large JSON). */
export const FOUND_CACHE_SIZE = 2048;

/** The Sedna objects and worker pods of the cluster, in SQL. */
export class EdgeView {
  readonly #sql: Sql;

  /** Objects parsed by `find`, by `kind/namespace/name`, oldest first; written through by every change. */
  readonly #found = new Map<string, KubeObject>();

  /** `generation`: of the last relist begun; `listing`: 1 while one is being received. */
  readonly #meta: MetaValues;

  constructor(sql: Sql) {
    this.#sql = sql;
    for (const statement of SCHEMA) sql.exec(statement);
    this.#meta = new MetaValues(sql, "sedna_edge_meta");
  }

  /** The current list generation (0 before any list). */
  generation(): number {
    return this.#meta.get("generation") ?? 0;
  }

  /** Whether a relist is being received (its batches are not acted on until its last). */
  listing(): boolean {
    return this.#meta.get("listing") === 1;
  }

  /** A relist starts: a new generation. */
  beginList(): void {
    this.#meta.set("generation", this.generation() + 1);
    this.#meta.set("listing", 1);
  }

  /** The relist is complete: what it did not list is removed; answers the objects removed. */
  endList(): ViewedObject[] {
    const generation = this.generation();
    const gone = this.#sql.exec<{ kind: string; namespace: string; name: string }>("SELECT kind, namespace, name FROM sedna_edge_objects WHERE gen < ?", generation).toArray();
    this.#sql.exec("DELETE FROM sedna_edge_objects WHERE gen < ?", generation);
    this.#sql.exec("DELETE FROM sedna_edge_pods WHERE gen < ?", generation);
    this.#meta.set("listing", 0);
    for (const row of gone) this.#found.delete(`${row.kind}/${row.namespace}/${row.name}`);
    return gone.flatMap((row) => (isEdgeKind(row.kind) ? [{ kind: row.kind, namespace: row.namespace, name: row.name }] : []));
  }

  /** Stores an object of a carried kind as watched. */
  putObject(object: KubeObject & { kind: EdgeKind }): void {
    this.#found.delete(`${object.kind}/${object.metadata.namespace ?? ""}/${object.metadata.name ?? ""}`);
    this.#sql.exec(
      // Written only when it changes (a row rewritten as it was is billed as written).
      "INSERT INTO sedna_edge_objects (kind, namespace, name, uid, object, gen) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (kind, namespace, name) DO UPDATE SET uid = excluded.uid, object = excluded.object, gen = excluded.gen " +
        "WHERE (sedna_edge_objects.uid, sedna_edge_objects.object, sedna_edge_objects.gen) IS NOT (excluded.uid, excluded.object, excluded.gen)",
      object.kind,
      object.metadata.namespace ?? "",
      object.metadata.name ?? "",
      object.metadata.uid ?? "",
      JSON.stringify(object),
      this.generation(),
    );
  }

  /** Forgets an object. */
  deleteObject(kind: EdgeKind, namespace: string, name: string): void {
    this.#found.delete(`${kind}/${namespace}/${name}`);
    this.#sql.exec("DELETE FROM sedna_edge_objects WHERE kind = ? AND namespace = ? AND name = ?", kind, namespace, name);
  }

  /** Stores a worker pod (by its uid); answers whether what the targets read of it changed (a phase change of its own does not). */
  putPod(uid: string, namespace: string, pod: WorkerPod): boolean {
    const text = JSON.stringify(pod);
    const before = this.#sql.exec<{ pod: string }>("SELECT pod FROM sedna_edge_pods WHERE uid = ?", uid).toArray()[0]?.pod;
    this.#sql.exec(
      "INSERT INTO sedna_edge_pods (uid, namespace, owner_uid, pod, gen) VALUES (?, ?, ?, ?, ?) ON CONFLICT (uid) DO UPDATE SET owner_uid = excluded.owner_uid, pod = excluded.pod, gen = excluded.gen " +
        "WHERE (sedna_edge_pods.owner_uid, sedna_edge_pods.pod, sedna_edge_pods.gen) IS NOT (excluded.owner_uid, excluded.pod, excluded.gen)",
      uid,
      namespace,
      pod.ownerUid,
      text,
      this.generation(),
    );
    return before !== text;
  }

  /** Forgets a pod; answers the uid of the owner it had, if it was known. */
  deletePod(uid: string): string | undefined {
    const owner = this.#sql.exec<{ owner_uid: string }>("SELECT owner_uid FROM sedna_edge_pods WHERE uid = ?", uid).toArray()[0]?.owner_uid;
    this.#sql.exec("DELETE FROM sedna_edge_pods WHERE uid = ?", uid);
    return owner;
  }

  /** The object of `kind` named so, if known. */
  find(kind: EdgeKind, namespace: string, name: string): KubeObject | undefined {
    const key = `${kind}/${namespace}/${name}`;
    const cached = this.#found.get(key);
    if (cached) return cached;
    const row = this.#sql.exec<{ object: string }>("SELECT object FROM sedna_edge_objects WHERE kind = ? AND namespace = ? AND name = ?", kind, namespace, name).toArray()[0];
    if (!row) return undefined;
    const object = JSON.parse(row.object) as KubeObject;
    this.#found.set(key, object);
    if (this.#found.size > FOUND_CACHE_SIZE) this.#found.delete(this.#found.keys().next().value ?? "");
    return object;
  }

  /** The object with this uid, if known. */
  byUid(uid: string): ViewedObject | undefined {
    const row = this.#sql.exec<{ kind: string; namespace: string; name: string }>("SELECT kind, namespace, name FROM sedna_edge_objects WHERE uid = ?", uid).toArray()[0];
    return row && isEdgeKind(row.kind) ? { kind: row.kind, namespace: row.namespace, name: row.name } : undefined;
  }

  /** Every object and worker pod of a namespace. */
  namespace(namespace: string): { objects: KubeObject[]; pods: WorkerPod[] } {
    const objects = this.#sql.exec<{ object: string }>("SELECT object FROM sedna_edge_objects WHERE namespace = ? ORDER BY kind, name", namespace).toArray();
    const pods = this.#sql.exec<{ pod: string }>("SELECT pod FROM sedna_edge_pods WHERE namespace = ? ORDER BY uid", namespace).toArray();
    return { objects: objects.map((row) => JSON.parse(row.object) as KubeObject), pods: pods.map((row) => JSON.parse(row.pod) as WorkerPod) };
  }

  /** Every namespace that holds an object. */
  namespaces(): string[] {
    return this.#sql.exec<{ namespace: string }>("SELECT DISTINCT namespace FROM sedna_edge_objects ORDER BY namespace").toArray().map((row) => row.namespace);
  }
}
