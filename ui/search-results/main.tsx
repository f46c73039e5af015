import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import '../lib/panel.css';
import './search-results.css';
import { SearchResultsApp } from './App.tsx';

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <SearchResultsApp />
  </StrictMode>,
);
