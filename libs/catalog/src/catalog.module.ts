import { Module } from '@nestjs/common';
import { CreatePriceHandler } from './application/create-price.js';
import { CreateProductHandler } from './application/create-product.js';
import { DeletePriceHandler } from './application/delete-price.js';
import { DeleteProductHandler } from './application/delete-product.js';
import { GetPriceHandler } from './application/get-price.js';
import { GetProductHandler } from './application/get-product.js';
import { ListPricesHandler } from './application/list-prices.js';
import { ListProductsHandler } from './application/list-products.js';
import { UpdatePriceHandler } from './application/update-price.js';
import { UpdateProductHandler } from './application/update-product.js';
import { PricesController } from './http/prices.controller.js';
import { ProductsController } from './http/products.controller.js';

/** Catalog: products and prices. */
@Module({
  controllers: [ProductsController, PricesController],
  providers: [
    CreateProductHandler,
    UpdateProductHandler,
    DeleteProductHandler,
    GetProductHandler,
    ListProductsHandler,
    CreatePriceHandler,
    UpdatePriceHandler,
    DeletePriceHandler,
    GetPriceHandler,
    ListPricesHandler,
  ],
})
export class CatalogModule {}
