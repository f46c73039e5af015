-- The vocabularies of the two FTS5 indexes (one row per Porter stem with its document count), for
-- typo correction (candidate words within an edit budget, scanned by first letter) and for keeping
-- WordNet expansions to words the index holds. fts5vocab tables store nothing: they read the FTS5
-- index they name. https://www.sqlite.org/fts5.html#the_fts5vocab_virtual_table_module
CREATE VIRTUAL TABLE assets_fts_vocab USING fts5vocab(assets_fts, 'row');
CREATE VIRTUAL TABLE products_fts_vocab USING fts5vocab(products_fts, 'row');
