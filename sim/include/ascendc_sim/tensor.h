// ascendc_sim/tensor.h - GlobalTensor<T> and LocalTensor<T> (fact sheet 2.2, 2.3).
//
// GlobalTensor is a typed view of host memory standing in for GM.  It remembers
// the extent given to SetGlobalBuffer (the "root" extent) so that every access
// through it or through any operator[] view of it is checked against that size,
// and additionally against the allocations the host registered.
//
// LocalTensor is a typed view of the current block's Unified Buffer, held as a
// UB byte address (not a pointer: the UB is re-created for every block) plus an
// element count and the end of the backing buffer.  Copying a LocalTensor
// aliases the same storage, as on the device.  operator[] cannot carry a source
// location, so a view that starts past the end is not reported at once: it is
// marked and reported by the first API that uses it (normally the same line).
#pragma once

#include "state.h"

namespace ascendc_sim::detail {

// Everything the checks need to know about a LocalTensor, independent of T.
struct LocalMeta {
    uint32_t addr = 0;   // UB byte address of element 0
    uint32_t limit = 0;  // UB byte address one past the backing buffer
    uint32_t size = 0;   // elements
    AscendC::TPosition pos = AscendC::TPosition::MAX;
    bool valid = false;      // false for a default-constructed tensor
    bool bad_view = false;   // produced by operator[] with an offset beyond the size
    uint64_t bad_offset = 0;
    uint32_t bad_size = 0;
};

inline bool is_ub_position(AscendC::TPosition p) {
    return p == AscendC::TPosition::VECIN || p == AscendC::TPosition::VECOUT || p == AscendC::TPosition::VECCALC;
}

inline const char* pos_name(AscendC::TPosition p) {
    using AscendC::TPosition;
    switch (p) {
    case TPosition::GM: return "GM";
    case TPosition::VECIN: return "VECIN";
    case TPosition::VECOUT: return "VECOUT";
    case TPosition::VECCALC: return "VECCALC";
    case TPosition::A1: return "A1";
    case TPosition::A2: return "A2";
    case TPosition::B1: return "B1";
    case TPosition::B2: return "B2";
    case TPosition::C1: return "C1";
    case TPosition::C2: return "C2";
    case TPosition::CO1: return "CO1";
    case TPosition::CO2: return "CO2";
    case TPosition::SPM: return "SPM";
    case TPosition::TSCM: return "TSCM";
    default: return "other";
    }
}

// A LocalTensor must be usable at all: obtained from a queue/buffer, and not a
// view past its end.
inline void check_local_usable(const char* api, const LocalMeta& m, const char* role, const std::source_location& loc) {
    if (!m.valid)
        violation(api, fmt("%s is an empty LocalTensor (not obtained from AllocTensor/DeQue/TBuf::Get)", role), loc);
    if (m.bad_view)
        violation(api,
                  fmt("%s is a view at element offset %llu of a LocalTensor with only %u elements", role,
                      static_cast<unsigned long long>(m.bad_offset), m.bad_size),
                  loc);
    if (!is_ub_position(m.pos))
        violation(api, fmt("%s has TPosition %s; vector APIs need VECIN/VECOUT/VECCALC", role, pos_name(m.pos)), loc);
}

}  // namespace ascendc_sim::detail

namespace AscendC {

template <typename T>
class LocalTensor {
public:
    using PrimType = T;

    LocalTensor() = default;

    // 9.x static-tensor style: a tensor at an explicit UB byte address.
    LocalTensor(TPosition pos, uint32_t addr, uint32_t tileSize,
                std::source_location loc = std::source_location::current()) {
        uint64_t end = static_cast<uint64_t>(addr) + static_cast<uint64_t>(tileSize) * sizeof(T);
        if (end > ascendc_sim::detail::prof().ub_bytes_total)
            ascendc_sim::detail::violation(
                "LocalTensor", ascendc_sim::detail::fmt("UB range [%u, %llu) exceeds the UB size %u", addr,
                                                        static_cast<unsigned long long>(end),
                                                        ascendc_sim::detail::prof().ub_bytes_total),
                loc);
        meta_.addr = addr;
        meta_.limit = static_cast<uint32_t>(end);
        meta_.size = tileSize;
        meta_.pos = pos;
        meta_.valid = true;
    }

    // View starting `offset` elements later (aliases the same storage).
    LocalTensor operator[](uint32_t offset) const {
        LocalTensor r = *this;
        if (meta_.bad_view) return r;
        if (offset > meta_.size) {
            r.meta_.bad_view = true;
            r.meta_.bad_offset = offset;
            r.meta_.bad_size = meta_.size;
            r.meta_.size = 0;
            return r;
        }
        r.meta_.addr = meta_.addr + offset * static_cast<uint32_t>(sizeof(T));
        r.meta_.size = meta_.size - offset;
        return r;
    }

    T GetValue(uint32_t index, std::source_location loc = std::source_location::current()) const {
        check_scalar("GetValue", index, loc);
        ascendc_sim::detail::record_scalar("GetValue", true, meta_.addr + index * static_cast<uint32_t>(sizeof(T)),
                                           sizeof(T), false, loc);
        return ascendc_sim::detail::ub_load<T>(meta_.addr + index * static_cast<uint32_t>(sizeof(T)));
    }

    template <typename T1>
    void SetValue(uint32_t index, T1 value, std::source_location loc = std::source_location::current()) const {
        check_scalar("SetValue", index, loc);
        ascendc_sim::detail::record_scalar("SetValue", true, meta_.addr + index * static_cast<uint32_t>(sizeof(T)),
                                           sizeof(T), true, loc);
        ascendc_sim::detail::ub_store<T>(meta_.addr + index * static_cast<uint32_t>(sizeof(T)), static_cast<T>(value));
    }

    // Reference into UB (scalar access).  The UB array is allocated by new[]
    // and every LocalTensor element address is a multiple of sizeof(T) relative
    // to it for views of 32 B aligned buffers, so the reference is aligned.
    T& operator()(uint32_t index, std::source_location loc = std::source_location::current()) const {
        check_scalar("operator()", index, loc);
        // A reference may be read or written: recorded as a write (the stricter).
        ascendc_sim::detail::record_scalar("operator()", true,
                                           meta_.addr + index * static_cast<uint32_t>(sizeof(T)), sizeof(T), true, loc);
        return *reinterpret_cast<T*>(ascendc_sim::detail::ub_base() + meta_.addr + index * sizeof(T));
    }

    uint32_t GetSize() const { return meta_.size; }
    uint32_t GetLength() const { return meta_.size * static_cast<uint32_t>(sizeof(T)); }  // bytes (deprecated API)

    void SetSize(uint32_t size, std::source_location loc = std::source_location::current()) {
        ascendc_sim::detail::check_local_usable("SetSize", meta_, "tensor", loc);
        uint64_t end = static_cast<uint64_t>(meta_.addr) + static_cast<uint64_t>(size) * sizeof(T);
        if (end > meta_.limit)
            ascendc_sim::detail::violation(
                "SetSize",
                ascendc_sim::detail::fmt("size %u elements (%llu bytes) exceeds the backing buffer (%u bytes left)",
                                         size, static_cast<unsigned long long>(size * sizeof(T)),
                                         meta_.limit - meta_.addr),
                loc);
        meta_.size = size;
    }

    TPosition GetPosition() const { return meta_.pos; }

    template <typename U>
    LocalTensor<U> ReinterpretCast() const {
        LocalTensor<U> r;
        r.meta_ = meta_;
        r.meta_.size = static_cast<uint32_t>(static_cast<uint64_t>(meta_.size) * sizeof(T) / sizeof(U));
        return r;
    }

    T* GetPhyAddr() const { return reinterpret_cast<T*>(ascendc_sim::detail::ub_base() + meta_.addr); }
    T* GetPhyAddr(uint32_t offset) const { return GetPhyAddr() + offset; }

    void SetUserTag(int32_t tag) { tag_ = tag; }
    int32_t GetUserTag() const { return tag_; }

    // ---- simulator internals (not part of the Ascend C API) ----
    ascendc_sim::detail::LocalMeta meta_{};
    int32_t tag_ = 0;

private:
    void check_scalar(const char* api, uint32_t index, const std::source_location& loc) const {
        ascendc_sim::detail::check_local_usable(api, meta_, "tensor", loc);
        if (index >= meta_.size)
            ascendc_sim::detail::violation(
                api, ascendc_sim::detail::fmt("index %u out of range for a LocalTensor of %u elements", index, meta_.size),
                loc);
    }
};

template <typename T>
class GlobalTensor {
public:
    using PrimType = T;

    GlobalTensor() = default;

    // bufferSize in elements.  The extent is remembered for bounds checks of
    // every later access through this tensor and its views.
    void SetGlobalBuffer(__gm__ T* buffer, uint64_t bufferSize,
                         std::source_location loc = std::source_location::current()) {
        (void)loc;
        ptr_ = buffer;
        size_ = bufferSize;
        root_begin_ = reinterpret_cast<uintptr_t>(buffer);
        root_end_ = root_begin_ + bufferSize * sizeof(T);
        sized_ = true;
    }
    // Without a size, GetSize() is 0 and only the registered allocations bound accesses.
    void SetGlobalBuffer(__gm__ T* buffer, std::source_location loc = std::source_location::current()) {
        (void)loc;
        ptr_ = buffer;
        size_ = 0;
        root_begin_ = reinterpret_cast<uintptr_t>(buffer);
        root_end_ = 0;
        sized_ = false;
    }

    GlobalTensor operator[](uint64_t offset) const {
        GlobalTensor r = *this;
        r.ptr_ = reinterpret_cast<T*>(reinterpret_cast<uintptr_t>(ptr_) + offset * sizeof(T));
        r.size_ = size_ > offset ? size_ - offset : 0;
        return r;
    }

    T GetValue(uint64_t offset, std::source_location loc = std::source_location::current()) const {
        const T* p = elem(offset);
        ascendc_sim::detail::gm_access("GlobalTensor::GetValue", root_begin_, sized_ ? root_end_ : 0, p, sizeof(T),
                                       false, loc);
        T v;
        std::memcpy(&v, p, sizeof(T));
        return v;
    }

    void SetValue(uint64_t offset, T value, std::source_location loc = std::source_location::current()) const {
        T* p = elem(offset);
        ascendc_sim::detail::gm_access("GlobalTensor::SetValue", root_begin_, sized_ ? root_end_ : 0, p, sizeof(T),
                                       true, loc);
        std::memcpy(p, &value, sizeof(T));
    }

    // Reference access: bounds-checked, but not counted as GM traffic (whether
    // it is a read or a write is not known here).
    T& operator()(uint64_t offset, std::source_location loc = std::source_location::current()) const {
        T* p = elem(offset);
        uint64_t saved_r = ascendc_sim::detail::st().gm_read;
        ascendc_sim::detail::gm_access("GlobalTensor::operator()", root_begin_, sized_ ? root_end_ : 0, p, sizeof(T),
                                       false, loc);
        ascendc_sim::detail::st().gm_read = saved_r;
        return *p;
    }

    uint64_t GetSize() const { return sized_ ? size_ : 0; }
    __gm__ T* GetPhyAddr() const { return ptr_; }
    __gm__ T* GetPhyAddr(uint64_t offset) const { return elem(offset); }

    template <typename U>
    GlobalTensor<U> ReinterpretCast() const {
        GlobalTensor<U> r;
        r.ptr_ = reinterpret_cast<U*>(ptr_);
        r.size_ = size_ * sizeof(T) / sizeof(U);
        r.root_begin_ = root_begin_;
        r.root_end_ = root_end_;
        r.sized_ = sized_;
        return r;
    }

    void SetL2CacheHint(CacheMode) {}

    // ---- simulator internals ----
    T* elem(uint64_t offset) const {
        return reinterpret_cast<T*>(reinterpret_cast<uintptr_t>(ptr_) + offset * sizeof(T));
    }
    uintptr_t check_end() const { return sized_ ? root_end_ : 0; }

    T* ptr_ = nullptr;
    uint64_t size_ = 0;
    uintptr_t root_begin_ = 0;
    uintptr_t root_end_ = 0;
    bool sized_ = true;
};

}  // namespace AscendC

namespace ascendc_sim::detail {

// Operand check shared by DataCopy and all vector APIs: the tensor is usable,
// its start address is `align`-byte aligned (32 for ordinary operands; some
// reduction outputs need less), and the bytes the API touches, `footprint`
// counted from the tensor start, lie within the tensor.
inline void check_operand(const char* api, const LocalMeta& m, const char* role, uint64_t footprint, uint32_t elem_size,
                          uint32_t align, const std::source_location& loc) {
    check_local_usable(api, m, role, loc);
    if (m.addr % align != 0)
        violation(api, fmt("%s start address (UB byte offset %u) is not %u-byte aligned", role, m.addr, align), loc);
    uint64_t have = static_cast<uint64_t>(m.size) * elem_size;
    if (footprint > have)
        violation(api,
                  fmt("%s footprint of %llu bytes exceeds the tensor (%u elements = %llu bytes)", role,
                      static_cast<unsigned long long>(footprint), m.size, static_cast<unsigned long long>(have)),
                  loc);
    record_operand(api, role, m.addr, footprint, loc);
}

// Two UB byte ranges [a, a+na) and [b, b+nb) of one operation: identical start
// (in-place) or disjoint are fine; anything else is a partial overlap, which
// the hardware does not define.
inline void check_no_partial_overlap(const char* api, const char* ra, uint32_t a, uint64_t na, const char* rb,
                                     uint32_t b, uint64_t nb, const std::source_location& loc) {
    if (na == 0 || nb == 0 || a == b) return;
    if (a < b + nb && b < a + na)
        violation(api,
                  fmt("%s UB bytes [%u, %llu) partially overlap %s UB bytes [%u, %llu) (only full in-place use is "
                      "allowed)",
                      ra, a, static_cast<unsigned long long>(a + na), rb, b, static_cast<unsigned long long>(b + nb)),
                  loc);
}

inline void check_disjoint(const char* api, const char* ra, uint32_t a, uint64_t na, const char* rb, uint32_t b,
                           uint64_t nb, const std::source_location& loc) {
    if (na == 0 || nb == 0) return;
    if (a < b + nb && b < a + na)
        violation(api,
                  fmt("%s UB bytes [%u, %llu) overlap %s UB bytes [%u, %llu); this API needs disjoint operands", ra,
                      a, static_cast<unsigned long long>(a + na), rb, b, static_cast<unsigned long long>(b + nb)),
                  loc);
}

}  // namespace ascendc_sim::detail
