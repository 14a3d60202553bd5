/**
 * The one projection of each object a delivery reads. The cache cuts every object once,
 * on arrival, to the union of its watches' fields (`./projection.ts`); a delivery that
 * wants fewer fields of an object the cache keeps whole for another watch (a pod one
 * controller reads whole, in another's snapshots of its node) cuts it with its watch's
 * projector (`protocol/snapshot/fields.ts`). Those cuts are made here once per object and shape, and
 * remembered while the object is held: a pod went through the same cut in every snapshot
 * of its node, and a deletion's last state once per route it took.
 */
import { DeliveredFields, WHOLE, type Projector } from "../../protocol/snapshot/fields.ts";
import type { ControllerManifest, KubeObject, Watch } from "../../protocol/index.ts";

/** `project`, made once per object: the same object in gives the same cut out, while it is held. */
function once(project: Projector): Projector {
  if (project === WHOLE) return WHOLE;
  const cuts = new WeakMap<KubeObject, KubeObject>();
  return (object) => {
    let cut = cuts.get(object);
    if (cut === undefined) {
      cut = project(object);
      cuts.set(object, cut);
    }
    return cut;
  };
}

/** {@link DeliveredFields} whose projectors cut each object once. */
export class DeliveredCuts extends DeliveredFields {
  readonly #byProjector = new WeakMap<Projector, Projector>();

  override ofWatch(watch: Watch): Projector {
    return this.#once(super.ofWatch(watch));
  }

  override ofKind(controller: ControllerManifest, kind: string): Projector {
    return this.#once(super.ofKind(controller, kind));
  }

  #once(project: Projector): Projector {
    let made = this.#byProjector.get(project);
    if (!made) {
      made = once(project);
      this.#byProjector.set(project, made);
    }
    return made;
  }
}
