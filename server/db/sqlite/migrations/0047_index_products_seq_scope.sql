-- A narrow copy of what product search checks per FTS5 match: store, status and type by seq
-- (db/lexical-index.ts joins products_fts to products INDEXED BY this index). Without it every match
-- of a frequent word reads its whole product row (descriptions, embedding text: often one page per
-- row), so counting 2,000 matches touched ~2,000 table pages; the index holds ~70 entries per page.
CREATE INDEX products_seq_scope ON products(seq, store_id, status, product_type);
