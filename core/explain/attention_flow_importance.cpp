// Attention flow (Abnar & Zuidema 2020): the layered graph whose edge (l, j) -> (l+1, i) has capacity Ã_l[i, j]
// (head-fused, residual-augmented, rows renormalised — the matrices of rollout); a token's score is the maximum
// flow from the token's node at layer 0 to [CLS] at the top layer. Exact: Dinic's algorithm (BFS levels +
// blocking flows by DFS) on the (L+1)·n-node graph, built once and run from each token (capacities restored); the
// tokens split over the core's threads, one copy of the graph each (the values do not depend on the thread count).
#include <algorithm>
#include <limits>
#include <string>

#include "explain/self_attention_maps.h"
#include "parallel/parallel_for.h"

namespace attnlab {

namespace {

struct FlowGraph {
  struct Edge {
    int to;
    double cap;
  };
  std::vector<Edge> edges;
  std::vector<std::vector<int>> adj;
  std::vector<int> level, it, queue;
  std::vector<int> touched;  // the edge pairs (index / 2) an augmenting path has changed since the last restore
  explicit FlowGraph(int nodes) : adj(nodes), level(nodes), it(nodes) { queue.reserve(nodes); }
  void add(int u, int v, double c) {
    adj[u].push_back(static_cast<int>(edges.size()));
    edges.push_back({v, c});
    adj[v].push_back(static_cast<int>(edges.size()));
    edges.push_back({u, 0.0});
  }
  static constexpr double kEps = 1e-15;
  bool bfs(int s, int t) {
    std::fill(level.begin(), level.end(), -1);
    queue.clear();  // breadth-first order; never more entries than nodes
    level[s] = 0;
    queue.push_back(s);
    for (size_t head = 0; head < queue.size(); ++head) {
      const int u = queue[head];
      if (level[t] >= 0 && level[u] >= level[t]) break;  // the level graph needs no node past the sink's level
      for (int e : adj[u])
        if (edges[e].cap > kEps && level[edges[e].to] < 0) {
          level[edges[e].to] = level[u] + 1;
          queue.push_back(edges[e].to);
        }
    }
    return level[t] >= 0;
  }
  double dfs(int u, int t, double f) {
    if (u == t) return f;
    for (int& i = it[u]; i < static_cast<int>(adj[u].size()); ++i) {
      const int e = adj[u][i];
      Edge& ed = edges[e];
      if (ed.cap > kEps && level[ed.to] == level[u] + 1) {
        const double pushed = dfs(ed.to, t, std::min(f, ed.cap));
        if (pushed > 0) {
          ed.cap -= pushed;
          edges[e ^ 1].cap += pushed;
          touched.push_back(e >> 1);
          return pushed;
        }
      }
    }
    return 0;
  }
  double max_flow(int s, int t) {
    double flow = 0;
    while (bfs(s, t)) {
      std::fill(it.begin(), it.end(), 0);
      while (const double f = dfs(s, t, std::numeric_limits<double>::infinity())) flow += f;
    }
    return flow;
  }
};

// The graph of layered_max_flow, built once; each max_flow call starts again from the full capacities, so one
// build serves every source (the graph and its edge order are the same, so are the results).
class LayeredGraph {
 public:
  explicit LayeredGraph(const std::vector<Mat<double>>& caps)
      : L_(static_cast<int>(caps.size())), n_(L_ ? static_cast<int>(caps[0].rows()) : 0), g_((L_ + 1) * n_) {
    g_.edges.reserve(2 * static_cast<size_t>(L_) * n_ * n_);
    for (int l = 0; l < L_; ++l)
      for (int i = 0; i < n_; ++i)
        for (int j = 0; j < n_; ++j)
          if (caps[l](i, j) > 0) g_.add(l * n_ + j, (l + 1) * n_ + i, caps[l](i, j));
    for (const auto& e : g_.edges) full_.push_back(e.cap);
  }
  // Only the edges the previous call's augmenting paths changed are restored (a full restore of the L·n² edges
  // for each of n sources was a third of the time at 512 tokens).
  double max_flow(int source, int sink) {
    if (L_ == 0) return source == sink ? 1.0 : 0.0;
    for (int pair : g_.touched) {
      g_.edges[2 * static_cast<size_t>(pair)].cap = full_[2 * static_cast<size_t>(pair)];
      g_.edges[2 * static_cast<size_t>(pair) + 1].cap = full_[2 * static_cast<size_t>(pair) + 1];
    }
    g_.touched.clear();
    return g_.max_flow(source, L_ * n_ + sink);
  }

 private:
  int L_, n_;
  FlowGraph g_;
  std::vector<double> full_;
};

}  // namespace

double layered_max_flow(const std::vector<Mat<double>>& caps, int source, int sink) {
  return LayeredGraph(caps).max_flow(source, sink);
}

std::vector<double> flow_from_maps(const SelfAttentionMaps& m, HeadFusion fusion, int layers) {
  const int L = layers <= 0 ? m.layers : std::min(layers, m.layers);
  std::vector<Mat<double>> caps;
  for (int l = 0; l < L; ++l) caps.push_back(residual_augmented(fuse_heads(m.A[l], fusion)));
  // One maximum flow per source, each from the full capacities (LayeredGraph::max_flow): the sources run side by
  // side on copies of the graph, a contiguous share each, with the values of one graph run source after source.
  const size_t sources = m.n > 1 ? static_cast<size_t>(m.n - 1) : 0;
  std::vector<double> out(sources);
  if (sources == 0) return out;
  const size_t lanes = in_parallel_loop() ? 1 : std::min(sources, static_cast<size_t>(thread_count()));
  std::vector<LayeredGraph> graphs(lanes, LayeredGraph(caps));
  parallel_for(lanes, [&](size_t k) {
    for (size_t j = split_begin(sources, lanes, k); j < split_begin(sources, lanes, k + 1); ++j)
      out[j] = graphs[k].max_flow(static_cast<int>(j) + 1, 0);
  });
  return out;
}

bool flow_affordable(int positions, int layers) {
  const double n = positions;
  return positions <= 1 || layers <= 0 || static_cast<double>(layers) * n * n * (n - 1) <= kFlowMaxWork;
}

std::string flow_limit_note(int positions, int layers) {
  int most = 1;
  while (most < positions && flow_affordable(most + 1, layers)) ++most;  // bounded: positions is not affordable
  return "Attention flow is left out: it runs one maximum flow per position through every layer, and " +
         std::to_string(positions) + " positions × " + std::to_string(layers) + " layers is beyond what it does " +
         "here (up to " + std::to_string(most) + " positions on this model); rollout is its faster relative";
}

std::vector<double> attention_flow_importance(const ExplainInput& in) {
  return flow_from_maps(self_attention_maps(in, false), HeadFusion::Mean);
}

}  // namespace attnlab
