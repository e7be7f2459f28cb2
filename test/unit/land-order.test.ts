// CMD-LAND-06's order: clean merges before unknown before conflicts; no overlap first; fast-forwards first; fewest overlaps; ties as given.
import { describe, expect, test } from "bun:test";
import type { MissionLanding } from "../../src/camps/overlap";
import { landingOrder } from "../../src/soldiers/land-many";

function m(id: string, over: Partial<MissionLanding> = {}): MissionLanding {
  return { id, branch: `vexillum/${id}`, base: "main", merge: "clean", conflicts: [], fastForward: true, files: [], overlaps: [], ...over };
}

describe("landingOrder (CMD-LAND-06)", () => {
  test("the forecast's ranks, then fewest overlaps, then the order given", () => {
    const given = [
      m("conflict", { merge: "conflict", fastForward: false }),
      m("unknown", { merge: "unknown", fastForward: false }),
      m("overlaps3", { overlaps: ["a", "b", "c"] }),
      m("overlaps1", { overlaps: ["a"] }),
      m("diverged-alone", { fastForward: false }),
      m("ff-alone-1"),
      m("ff-overlaps1-diverged", { overlaps: ["a"], fastForward: false }),
      m("ff-alone-2"),
    ];
    expect(landingOrder(given).map((x) => x.id)).toEqual(["ff-alone-1", "ff-alone-2", "diverged-alone", "overlaps1", "overlaps3", "ff-overlaps1-diverged", "unknown", "conflict"]);
  });

  test("nothing to order", () => {
    expect(landingOrder([])).toEqual([]);
  });
});
