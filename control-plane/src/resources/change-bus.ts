import type { Change } from './change-log.js';

export type ChangeListener = (change: Change) => void;

/** In-process fan-out of committed changes, per resource kind. Listeners must only enqueue: they run on the writer's path. */
export class ChangeBus {
  private readonly listeners = new Map<string, Set<ChangeListener>>();

  subscribe(plural: string, listener: ChangeListener): () => void {
    let set = this.listeners.get(plural);
    if (!set) this.listeners.set(plural, (set = new Set()));
    set.add(listener);
    return () => set.delete(listener);
  }

  publish(change: Change): void {
    for (const listener of this.listeners.get(change.plural) ?? []) listener(change);
  }

  subscriberCount(plural: string): number {
    return this.listeners.get(plural)?.size ?? 0;
  }
}
