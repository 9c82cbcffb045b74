use super::*;
use crate::board::EDGE_COUNT;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// The search from every intersection that `longest_route` prunes.
fn from_everywhere(roads: EdgeMask, blocked: VertexMask) -> u8 {
    (0..VERTEX_COUNT)
        .map(|v| walk(topology(), v, roads, blocked))
        .max()
        .unwrap_or(0)
}

/// Whether some trail component of `roads` holds a loop.
fn has_loop(roads: EdgeMask, blocked: VertexMask) -> bool {
    let topo = topology();
    let mut rest = roads;
    while rest != 0 {
        let e = EdgeId(rest.trailing_zeros() as u8);
        let component = trail_component(topo, roads, e, blocked);
        rest &= !component;
        let root = topo.edge_vertex_mask[e.index()] & !blocked;
        if root != 0 {
            let tree = Tree::from_root(topo, component, blocked, root.trailing_zeros() as usize);
            if tree.has_loop {
                return true;
            }
        }
    }
    false
}

/// `n` random paths grown from random intersections, as one seat builds them.
fn random_roads(rng: &mut ChaCha8Rng, n: usize) -> EdgeMask {
    let topo = topology();
    let mut roads: EdgeMask = 0;
    let mut reach: VertexMask = 1 << rng.random_range(0..VERTEX_COUNT);
    for _ in 0..n {
        let mut spots: EdgeMask = 0;
        let mut m = reach;
        while m != 0 {
            spots |= topo.vertex_edge_mask[m.trailing_zeros() as usize];
            m &= m - 1;
        }
        spots &= !roads;
        if spots == 0 || rng.random_range(0..8) == 0 {
            // Sometimes a second network, to have several components.
            reach |= 1 << rng.random_range(0..VERTEX_COUNT);
            continue;
        }
        let mut k = rng.random_range(0..spots.count_ones());
        while k > 0 {
            spots &= spots - 1;
            k -= 1;
        }
        let e = spots.trailing_zeros() as usize;
        roads |= 1 << e;
        reach |= topo.edge_vertex_mask[e];
    }
    roads
}

#[test]
fn the_pruned_search_agrees_with_a_search_from_every_intersection() {
    //
    let mut rng = ChaCha8Rng::seed_from_u64(10);
    let mut loops = 0;
    for _ in 0..20_000 {
        let n = rng.random_range(0..=15);
        let roads = random_roads(&mut rng, n);
        let blocked = rng.random::<u64>() & rng.random::<u64>() & rng.random::<u64>();
        let blocked = blocked & ((1 << VERTEX_COUNT) - 1);
        let expected = from_everywhere(roads, blocked);
        assert_eq!(
            longest_route(roads, blocked),
            expected,
            "roads {roads:#x}, blocked {blocked:#x}"
        );
        assert_eq!(
            search_route(topology(), roads, blocked),
            expected,
            "roads {roads:#x}, blocked {blocked:#x}"
        );
        loops += usize::from(has_loop(roads, blocked));
    }
    // The sample exercises the full search of components with a loop too.
    assert!(loops > 500, "only {loops} networks with a loop");
}

/// [`route_through_new_road`] by the recursive pass of [`Tree`], with one `visited`
/// for both ends.
fn through_by_tree(roads: EdgeMask, e: EdgeId, blocked: VertexMask) -> Option<u8> {
    let topo = topology();
    let mut tree = Tree::new(topo, roads, blocked);
    let mut through = 1;
    for end in topo.edge_vertices[e.index()] {
        if blocked & end.bit() == 0 {
            through += tree.height(end.index(), e.bit());
            if tree.has_loop {
                return None;
            }
        }
    }
    Some(through)
}

#[test]
fn the_route_through_a_new_road_agrees_with_the_recursive_pass() {
    // the layer-by-layer pass finds the same paths and the same loops.
    let mut rng = ChaCha8Rng::seed_from_u64(12);
    let (mut trees, mut loops) = (0, 0);
    for _ in 0..20_000 {
        let n = rng.random_range(1..=15);
        let roads = random_roads(&mut rng, n);
        let blocked = rng.random::<u64>() & rng.random::<u64>() & rng.random::<u64>();
        let blocked = blocked & ((1 << VERTEX_COUNT) - 1);
        let mut m = roads;
        while m != 0 {
            let e = EdgeId(m.trailing_zeros() as u8);
            m &= m - 1;
            let through = route_through_new_road(topology(), roads, e, blocked);
            assert_eq!(
                through,
                through_by_tree(roads, e, blocked),
                "roads {roads:#x}, road {e:?}, blocked {blocked:#x}"
            );
            trees += usize::from(through.is_some());
            if through.is_none() {
                // The loop met is in the road's trail component: the search
                // there is what the component's own pass would end in.
                loops += 1;
                let reachable = trail_component(topology(), roads, e, blocked);
                assert_eq!(
                    search_route(topology(), reachable, blocked),
                    component_route(topology(), reachable, blocked),
                    "roads {roads:#x}, road {e:?}, blocked {blocked:#x}"
                );
            }
        }
    }
    assert!(
        trees > 50_000 && loops > 5_000,
        "{trees} trees, {loops} loops"
    );
}

#[test]
fn a_new_road_changes_the_route_only_through_its_trail_component() {
    // the incremental update after a road equals a search from scratch.
    let mut rng = ChaCha8Rng::seed_from_u64(11);
    for _ in 0..5_000 {
        let roads = random_roads(&mut rng, 15);
        let blocked = rng.random::<u64>() & rng.random::<u64>() & ((1 << VERTEX_COUNT) - 1);
        let (mut built, mut length): (EdgeMask, u8) = (0, 0);
        let mut m = roads;
        while m != 0 {
            let e = EdgeId(m.trailing_zeros() as u8);
            m &= m - 1;
            built |= e.bit();
            let reachable = trail_component(topology(), built, e, blocked);
            length = length.max(component_route(topology(), reachable, blocked));
            assert_eq!(length, longest_route(built, blocked), "roads {built:#x}");
        }
    }
}

#[test]
fn a_bare_loop_counts_every_road_and_a_blocked_corner_does_not_break_it() {
    // a loop counts; a route may start and end at a blocked intersection.
    let topo = topology();
    let ring = topo.tile_vertices[9];
    let mut roads: EdgeMask = 0;
    for i in 0..6 {
        let e = topo.edge_between(ring[i], ring[(i + 1) % 6]).unwrap();
        roads |= e.bit();
    }
    assert_eq!(longest_route(roads, 0), 6);
    assert_eq!(longest_route(roads, ring[2].bit()), 6);
    assert_eq!(longest_route(roads, ring[2].bit() | ring[4].bit()), 4);
    // The same loop beside a separate short road elsewhere.
    let far = (0..EDGE_COUNT)
        .map(|e| 1u128 << e)
        .find(|&b| {
            let ends = topo.edge_vertex_mask[b.trailing_zeros() as usize];
            (0..6).all(|i| ends & ring[i].bit() == 0)
        })
        .unwrap();
    assert_eq!(longest_route(roads | far, 0), 6);
}

#[test]
fn a_holder_tied_for_highest_keeps_the_card() {
    //
    assert_eq!(award(Some(Seat(0)), &[5, 5, 0, 0], 4, 5), Some(Seat(0)));
}

#[test]
fn a_player_strictly_exceeding_the_holder_takes_the_card() {
    //
    assert_eq!(award(Some(Seat(0)), &[5, 6, 0, 0], 4, 5), Some(Seat(1)));
}

#[test]
fn a_cut_holder_loses_the_card_to_a_single_longest_player() {
    //
    assert_eq!(award(Some(Seat(0)), &[4, 6, 5, 0], 4, 5), Some(Seat(1)));
}

#[test]
fn a_cut_holder_with_a_tie_for_longest_leaves_the_card_with_nobody() {
    //
    assert_eq!(award(Some(Seat(0)), &[4, 6, 6, 0], 4, 5), None);
}

#[test]
fn nobody_holds_the_card_below_the_minimum() {
    //
    assert_eq!(award(Some(Seat(0)), &[4, 4, 3, 0], 4, 5), None);
    assert_eq!(award(None, &[4, 0, 0, 0], 4, 5), None);
}

#[test]
fn the_first_player_to_reach_the_minimum_takes_the_card() {
    //
    assert_eq!(award(None, &[5, 3, 0, 0], 4, 5), Some(Seat(0)));
    assert_eq!(
        award(None, &[0, 0, 3, 0], 4, LARGEST_ARMY_MIN),
        Some(Seat(2))
    );
}
