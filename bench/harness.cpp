// Google Benchmark harness: ns per call of mass_matrix, bias_forces and forward_dynamics,
// for lagc's generated code (LAGC) or SymPy's (SYMPY), on the same chain and state.
// With argument "count N" it instead calls forward dynamics N times (for callgrind) and
// prints a checksum of the results (bench.py compares lagc's with SymPy's).
#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#ifdef LAGC
#include LAGC_HEADER
namespace model = LAGC_NS;
constexpr int n = model::nq;
static model::Parameters params;
static void mass(const double* q, double* M) { model::mass_matrix(q, params, M); }
static void bias(const double* q, const double* qd, const double* u, double* h) {
    (void)u;
    model::bias_forces(q, qd, params, h);
}
static int forward(const double* q, const double* qd, const double* u, double* qdd) {
    return model::forward_dynamics(q, qd, u, params, qdd, nullptr);
}
#else
constexpr int n = CHAIN_N;
void sympy_mass_matrix(const double* q, const double* p, double* M);
void sympy_forcing(const double* q, const double* qd, const double* u, const double* p, double* F);
void sympy_dynamics(const double* q, const double* qd, const double* u, const double* p, double* M, double* F);
static double params[1 + 2 * n];
static void mass(const double* q, double* M) { sympy_mass_matrix(q, params, M); }
static void bias(const double* q, const double* qd, const double* u, double* F) { sympy_forcing(q, qd, u, params, F); }
// M qdd = F with a plain Cholesky solve, as a SymPy user would write it.
static int forward(const double* q, const double* qd, const double* u, double* qdd) {
    double M[n * n], F[n];
    sympy_dynamics(q, qd, u, params, M, F);
    for (int j = 0; j < n; ++j) {
        double d = M[j * n + j];
        for (int k = 0; k < j; ++k) d -= M[j * n + k] * M[j * n + k];
        if (!(d > 0)) return 1;
        d = std::sqrt(d);
        M[j * n + j] = d;
        for (int i = j + 1; i < n; ++i) {
            double s = M[i * n + j];
            for (int k = 0; k < j; ++k) s -= M[i * n + k] * M[j * n + k];
            M[i * n + j] = s / d;
        }
    }
    for (int i = 0; i < n; ++i) {
        double s = F[i];
        for (int k = 0; k < i; ++k) s -= M[i * n + k] * qdd[k];
        qdd[i] = s / M[i * n + i];
    }
    for (int i = n - 1; i >= 0; --i) {
        double s = qdd[i];
        for (int k = i + 1; k < n; ++k) s -= M[k * n + i] * qdd[k];
        qdd[i] = s / M[i * n + i];
    }
    return 0;
}
#endif

static double q0[n], qd0[n], u0[n];

static void setup() {
#ifndef LAGC
    params[0] = 9.81;
    for (int i = 0; i < n; ++i) params[1 + 2 * i] = 1.0, params[2 + 2 * i] = 0.5;
#endif
    for (int i = 0; i < n; ++i) q0[i] = 0.3 * std::sin(1.0 + i), qd0[i] = 0.2 * std::cos(2.0 + i), u0[i] = 0.1 * i;
}

static void BM_mass_matrix(benchmark::State& state) {
    double M[n * n];
    for (auto _ : state) {
        mass(q0, M);
        benchmark::DoNotOptimize(M);
        benchmark::ClobberMemory();
    }
}
static void BM_bias_forces(benchmark::State& state) {
    double h[n];
    for (auto _ : state) {
        bias(q0, qd0, u0, h);
        benchmark::DoNotOptimize(h);
        benchmark::ClobberMemory();
    }
}
static void BM_forward_dynamics(benchmark::State& state) {
    double qdd[n];
    for (auto _ : state) {
        if (forward(q0, qd0, u0, qdd)) state.SkipWithError("singular");
        benchmark::DoNotOptimize(qdd);
        benchmark::ClobberMemory();
    }
}
BENCHMARK(BM_mass_matrix);
BENCHMARK(BM_bias_forces);
BENCHMARK(BM_forward_dynamics);

int main(int argc, char** argv) {
    setup();
    if (argc == 3 && std::strcmp(argv[1], "count") == 0) {
        long calls = std::atol(argv[2]);
        double q[n], qdd[n], acc = 0;
        for (long c = 0; c < calls; ++c) {
            for (int i = 0; i < n; ++i) q[i] = q0[i] + 1e-6 * static_cast<double>(c % 7);
            if (forward(q, qd0, u0, qdd)) return 1;
            for (int i = 0; i < n; ++i) acc += (i + 1) * qdd[i];
        }
        std::printf("%.17g\n", acc);
        return 0;
    }
    benchmark::Initialize(&argc, argv);
    benchmark::RunSpecifiedBenchmarks();
    return 0;
}
