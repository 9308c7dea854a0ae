// Attention flow (Abnar & Zuidema 2020): the layered graph whose edge (l, j) -> (l+1, i) has capacity Ã_l[i, j]
// (head-fused, residual-augmented, rows renormalised — the matrices of rollout); a token's score is the maximum
// flow from the token's node at layer 0 to [CLS] at the top layer. Exact: Dinic's algorithm (BFS levels +
// blocking flows by DFS) on the (L+1)·n-node graph, one run per token.
#include <algorithm>
#include <limits>
#include <queue>

#include "explain/self_attention_maps.h"

namespace attnlab {

namespace {

struct FlowGraph {
  struct Edge {
    int to;
    double cap;
  };
  std::vector<Edge> edges;
  std::vector<std::vector<int>> adj;
  std::vector<int> level, it;
  explicit FlowGraph(int nodes) : adj(nodes), level(nodes), it(nodes) {}
  void add(int u, int v, double c) {
    adj[u].push_back(static_cast<int>(edges.size()));
    edges.push_back({v, c});
    adj[v].push_back(static_cast<int>(edges.size()));
    edges.push_back({u, 0.0});
  }
  static constexpr double kEps = 1e-15;
  bool bfs(int s, int t) {
    std::fill(level.begin(), level.end(), -1);
    std::queue<int> q;
    level[s] = 0;
    q.push(s);
    while (!q.empty()) {
      const int u = q.front();
      q.pop();
      for (int e : adj[u])
        if (edges[e].cap > kEps && level[edges[e].to] < 0) {
          level[edges[e].to] = level[u] + 1;
          q.push(edges[e].to);
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

}  // namespace

double layered_max_flow(const std::vector<Mat<double>>& caps, int source, int sink) {
  const int L = static_cast<int>(caps.size());
  const int n = L ? static_cast<int>(caps[0].rows()) : 0;
  if (L == 0) return source == sink ? 1.0 : 0.0;
  FlowGraph g((L + 1) * n);
  for (int l = 0; l < L; ++l)
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j)
        if (caps[l](i, j) > 0) g.add(l * n + j, (l + 1) * n + i, caps[l](i, j));
  return g.max_flow(source, L * n + sink);
}

std::vector<double> flow_from_maps(const SelfAttentionMaps& m, HeadFusion fusion, int layers) {
  const int L = layers <= 0 ? m.layers : std::min(layers, m.layers);
  std::vector<Mat<double>> caps;
  for (int l = 0; l < L; ++l) caps.push_back(residual_augmented(fuse_heads(m.A[l], fusion)));
  std::vector<double> out;
  for (int j = 1; j < m.n; ++j) out.push_back(layered_max_flow(caps, j, 0));
  return out;
}

std::vector<double> attention_flow_importance(const ExplainInput& in) {
  return flow_from_maps(self_attention_maps(in, false), HeadFusion::Mean);
}

}  // namespace attnlab
