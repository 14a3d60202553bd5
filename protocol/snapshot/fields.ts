/**
 * What a controller is given of the objects of its watches: the fields they declare
 * (ADR 0016), not whatever the shared cache of the kind keeps for other watches. The
 * relay's cache of every pod keeps a pod whole when a label-selected watch of one
 * controller reads all of it; another controller's snapshot of a node, or an events batch,
 * still wants only its own fields of that pod (about a tenth of its bytes: each byte is
 * serialised, signed, sent, verified and parsed once per delivery). Projected when
 * delivered, not cached: a second copy of every pod would cost the relay the memory the
 * shared cache saves; and only objects the cache keeps whole ({@link fromCache}).
 */
import { kindKey, type ControllerManifest, type KubeObject, type Watch } from "../index.ts";
import { ALWAYS_KEPT, pathTree, projectValue } from "./path-tree.ts";

/** An object as one delivery gives it. */
export type Projector = (object: KubeObject) => KubeObject;

/** Delivers objects as they are (a watch that declares no fields reads them whole). */
export const WHOLE: Projector = (object) => object;

/**
 * `project` for the objects of a cache: an object the cache holds cut to the union of its
 * watches' fields already goes as it is (a copy per delivery of every such pod raised the
 * relay's peak RSS at 100,000 pods by ~35 MiB); one it keeps whole for another watch is
 * cut. So a controller gets its declared fields, and at most the other watches' of its kind.
 */
export function fromCache(project: Projector, cache: { trimmed?(object: KubeObject): boolean } | undefined): Projector {
  if (project === WHOLE) return WHOLE;
  return (object) => (cache?.trimmed?.(object) === true ? object : project(object));
}

/** The fields a watch needs kept: those it declares and the path its `field` mapping reads (undefined: whole objects). */
export function fieldsOf(watch: Watch): readonly string[] | undefined {
  if (!watch.fields) return undefined;
  return watch.mapping.by === "field" ? [...watch.fields, watch.mapping.path] : watch.fields;
}

/**
 * The projections of one relay's deliveries, each made once per watch (or per controller
 * and kind) and kept as long as its manifest is: a path tree built per delivered object
 * was a cost of its own. Held by the deliveries, not by this module.
 */
export class DeliveredFields {
  readonly #byWatch = new WeakMap<Watch, Projector>();
  readonly #byController = new WeakMap<ControllerManifest, Map<string, Projector>>();

  /** The projection of the objects one watch delivers: its fields and what always identifies an object; whole when it declares none. */
  ofWatch(watch: Watch): Projector {
    let projector = this.#byWatch.get(watch);
    if (!projector) {
      projector = projectionOf([watch]);
      this.#byWatch.set(watch, projector);
    }
    return projector;
  }

  /**
   * The projection of the objects of kind `kind` (a `kindKey`) delivered to `controller`:
   * the union of the fields of its watches of that kind; whole when one declares none.
   */
  ofKind(controller: ControllerManifest, kind: string): Projector {
    let kinds = this.#byController.get(controller);
    if (!kinds) {
      kinds = new Map();
      this.#byController.set(controller, kinds);
    }
    let projector = kinds.get(kind);
    if (!projector) {
      projector = projectionOf(controller.watches.filter((watch) => kindKey(watch) === kind));
      kinds.set(kind, projector);
    }
    return projector;
  }
}

/** The projection of objects delivered for `watches` (of one kind): the union of their fields; whole when one declares none. */
export function projectionOf(watches: readonly Watch[]): Projector {
  const fields = watches.map(fieldsOf);
  if (fields.length === 0 || fields.some((f) => f === undefined)) return WHOLE;
  const tree = pathTree([...ALWAYS_KEPT, ...fields.flatMap((f) => f ?? [])]);
  return (object) => projectValue(object, tree) as KubeObject;
}
