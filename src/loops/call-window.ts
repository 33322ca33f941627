// The loop detector's sliding window of recent calls: how often each call+outcome pair and each
// target without news occur in it, and how many of its calls were stale. Counts are kept on
// push and evict so each call costs the same however long the session runs.
export interface Slot {
	index: number;
	call: string; // call signature hash
	combo: string; // call + outcome hash
	target: string;
	/** Whether this call told the agent nothing new about its target. */
	noNews: boolean;
	/** Counts towards the stale signal: a call other than a read that told nothing new (rereading is the
	 * read signals' business). */
	stale: boolean;
}

export class CallWindow {
	private ring: Slot[] = [];
	private head = 0;
	readonly combos = new Map<string, { count: number; first: number }>();
	readonly noNewsByTarget = new Map<string, number>();
	staleInWindow = 0;

	private readonly size: number;

	constructor(size: number) {
		this.size = size;
	}

	get length(): number {
		return this.ring.length;
	}

	clear(): void {
		this.ring = [];
		this.head = 0;
		this.combos.clear();
		this.noNewsByTarget.clear();
		this.staleInWindow = 0;
	}

	push(slot: Slot): void {
		const w = this.size;
		if (this.ring.length < w) this.ring.push(slot);
		else {
			this.evict(this.ring[this.head]);
			this.ring[this.head] = slot;
			this.head = (this.head + 1) % w;
		}
		const c = this.combos.get(slot.combo);
		if (c) c.count++;
		else this.combos.set(slot.combo, { count: 1, first: slot.index });
		if (slot.noNews) this.noNewsByTarget.set(slot.target, (this.noNewsByTarget.get(slot.target) ?? 0) + 1);
		if (slot.stale) this.staleInWindow++;
	}

	private evict(slot: Slot): void {
		const c = this.combos.get(slot.combo);
		if (c) {
			if (c.count <= 1) this.combos.delete(slot.combo);
			else {
				c.count--;
				c.first = this.nextIndexOfCombo(slot.combo, slot.index);
			}
		}
		if (slot.stale) this.staleInWindow--;
		if (slot.noNews) {
			const n = (this.noNewsByTarget.get(slot.target) ?? 1) - 1;
			if (n <= 0) this.noNewsByTarget.delete(slot.target);
			else this.noNewsByTarget.set(slot.target, n);
		}
	}

	/** The earliest index of a combo still in the window after `after` leaves it. */
	private nextIndexOfCombo(combo: string, after: number): number {
		let best = Number.POSITIVE_INFINITY;
		for (const s of this.ring) if (s.combo === combo && s.index > after && s.index < best) best = s.index;
		return Number.isFinite(best) ? best : after;
	}

	firstStaleIndex(): number {
		let best = Number.POSITIVE_INFINITY;
		for (const s of this.ring) if (s.stale && s.index < best) best = s.index;
		return Number.isFinite(best) ? best : 0;
	}

	firstIndexOfTarget(target: string): number {
		let best = Number.POSITIVE_INFINITY;
		for (const s of this.ring) if (s.target === target && s.noNews && s.index < best) best = s.index;
		return Number.isFinite(best) ? best : 0;
	}
}
