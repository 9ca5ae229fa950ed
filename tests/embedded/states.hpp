// The states the embedded job evaluates forward_dynamics at, on the target (float) and on
// the host (double): the same numbers in both, exact in float.
#pragma once

inline constexpr int lagc_states = 4;

template <class T>
void lagc_state(int s, int nq, int nu, T* q, T* qd, T* u) {
    for (int i = 0; i < nq; ++i) {
        q[i] = static_cast<T>(0.125f * static_cast<float>((i * 5 + s * 3) % 11) - 0.5f);
        qd[i] = static_cast<T>(0.25f * static_cast<float>((i * 3 + s * 7) % 9) - 1.0f);
    }
    for (int k = 0; k < nu; ++k) u[k] = static_cast<T>(0.5f * static_cast<float>((k + s) % 5) - 1.0f);
}
