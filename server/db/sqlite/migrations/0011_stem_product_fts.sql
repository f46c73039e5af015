-- English stemming for the catalog's lexical search (as 0010 for assets): "shirts" finds "shirt".
-- products_fts stores its column text, so the rebuild copies it; db/products.ts keeps writing the rows.
-- https://www.sqlite.org/fts5.html#porter_tokenizer
CREATE TEMP TABLE products_fts_copy AS
  SELECT rowid AS seq, title, handle, vendor, product_type, tags, description, variants FROM products_fts;
DROP TABLE products_fts;
CREATE VIRTUAL TABLE products_fts USING fts5(
  title, handle, vendor, product_type, tags, description, variants,
  tokenize = 'porter unicode61 remove_diacritics 2',
  prefix = '2 3'
);
INSERT INTO products_fts(rowid, title, handle, vendor, product_type, tags, description, variants)
  SELECT seq, title, handle, vendor, product_type, tags, description, variants FROM products_fts_copy;
DROP TABLE products_fts_copy;
