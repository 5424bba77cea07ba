/**
 * The sandbox's services in start order (service i listens on the first service port + i).
 * Built per start so stateful feeds (the price walk) begin fresh each time.
 */
import { createCryptoPrices } from "./crypto-prices";
import { currencyConvert } from "./currency";
import type { ServiceDefinition } from "./definition";
import { dictionary } from "./dictionary";
import { docSearch } from "./doc-search";
import { airQuality } from "./air-quality";
import { holidays } from "./holidays";
import { hostile } from "./hostile";
import { marketTicks } from "./market-ticks";
import { newsHeadlines } from "./news";
import { quotations, quotationsMpp, quotesSilent } from "./quotes";
import { summarize } from "./summarize";
import { translate } from "./translate";
import { weatherBudget, weatherExpress, weatherMpp } from "./weather";

export function sandboxServices({ priceSeed }: { priceSeed?: number } = {}): ServiceDefinition[] {
  return [
    weatherExpress,
    weatherBudget,
    createCryptoPrices(priceSeed),
    newsHeadlines,
    currencyConvert,
    translate,
    dictionary,
    hostile,
    holidays,
    airQuality,
    quotations,
    weatherMpp,
    quotationsMpp,
    summarize,
    docSearch,
    marketTicks,
    quotesSilent,
  ];
}
