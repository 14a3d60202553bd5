/**
 * Compile-time proof for a Durable Object class: its RPC stub answers the contract its
 * declaration carries. A family's `durable.ts` asserts it for its classes, the Worker shell
 * for the floor's (`functions/bindings.ts`), so a method the contract names and the class
 * lacks, or answers in another shape over RPC, fails the typecheck. Runs in workerd only
 * (the stub types are the Workers runtime's).
 */
import type { DurableObjectDeclaration } from "../../durable/declaration.ts";

/** `true` when the stubs of `Class` answer the contract of `Declaration`, `false` otherwise: assert it with `const proof: StubAnswers<…> = true`. */
export type StubAnswers<Class extends Rpc.DurableObjectBranded, Declaration extends DurableObjectDeclaration> =
  Declaration extends DurableObjectDeclaration<infer Contract> ? (DurableObjectStub<Class> extends Contract ? true : false) : false;

/** The base of a family's Durable Object class: the readiness route reads its storage through it (`durable/probed.ts`). */
export { ProbedDurableObject } from "../../durable/probed.ts";
