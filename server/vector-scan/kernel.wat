;; Int8 dot-product scan (WebAssembly SIMD, fixed-width 128-bit: supported by Node ≥ 16 and every
;; current browser engine). Built into kernel-wasm.ts by scripts/build-kernel.mjs (npm `wabt`).
;;
;; scan(vecs, n, stride, query, scales, mask, out):
;;   for each row i < n: out[i] = mask[i] ? f32(Σ_j vecs[i·stride + j] · query[j]) · scales[i] : -inf
;;   vecs   n rows of `stride` signed bytes (stride a multiple of 16, rows zero-padded), 16-aligned
;;   query  `stride` signed bytes, 16-aligned
;;   scales n f32 (the row's de-quantisation factor), mask n bytes (0 = skip), out n f32
;; Products of int8 pairs are widened to i16 and summed pairwise into i32 lanes (i32x4.dot_i16x8_s):
;; |v·q| ≤ 127² · 2 per lane per 16 bytes, so no overflow below 66,000 dimensions.
(module
  (memory (export "memory") 1)
  (func (export "scan")
    (param $vecs i32) (param $n i32) (param $stride i32) (param $query i32)
    (param $scales i32) (param $mask i32) (param $out i32)
    (local $i i32) (local $row i32) (local $j i32)
    (local $acc v128) (local $a v128) (local $b v128)
    (block $done
      (loop $rows
        (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
        (if (i32.load8_u (i32.add (local.get $mask) (local.get $i)))
          (then
            (local.set $acc (v128.const i32x4 0 0 0 0))
            (local.set $row (i32.add (local.get $vecs) (i32.mul (local.get $i) (local.get $stride))))
            (local.set $j (i32.const 0))
            (loop $chunks
              (local.set $a (v128.load (i32.add (local.get $row) (local.get $j))))
              (local.set $b (v128.load (i32.add (local.get $query) (local.get $j))))
              (local.set $acc
                (i32x4.add (local.get $acc)
                  (i32x4.dot_i16x8_s (i16x8.extend_low_i8x16_s (local.get $a)) (i16x8.extend_low_i8x16_s (local.get $b)))))
              (local.set $acc
                (i32x4.add (local.get $acc)
                  (i32x4.dot_i16x8_s (i16x8.extend_high_i8x16_s (local.get $a)) (i16x8.extend_high_i8x16_s (local.get $b)))))
              (local.set $j (i32.add (local.get $j) (i32.const 16)))
              (br_if $chunks (i32.lt_u (local.get $j) (local.get $stride))))
            (f32.store
              (i32.add (local.get $out) (i32.shl (local.get $i) (i32.const 2)))
              (f32.mul
                (f32.convert_i32_s
                  (i32.add
                    (i32.add (i32x4.extract_lane 0 (local.get $acc)) (i32x4.extract_lane 1 (local.get $acc)))
                    (i32.add (i32x4.extract_lane 2 (local.get $acc)) (i32x4.extract_lane 3 (local.get $acc)))))
                (f32.load (i32.add (local.get $scales) (i32.shl (local.get $i) (i32.const 2)))))))
          (else
            (f32.store
              (i32.add (local.get $out) (i32.shl (local.get $i) (i32.const 2)))
              (f32.const -inf))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $rows))))
)
